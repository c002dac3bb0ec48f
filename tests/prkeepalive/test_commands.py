"""The commands for GitHub Actions, against the fake GitHub server: the
exact lines, the Summary file, the step outputs and the exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ISSUE_BODY
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def actions(
    github: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Path]:
    paths = {
        "summary": tmp_path / "summary.md",
        "output": tmp_path / "output.txt",
        "event": tmp_path / "event.json",
    }
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("GITHUB_TOKEN", "bot-token")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/widgets")
    monkeypatch.setenv("GITHUB_RUN_ID", "999")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(paths["summary"]))
    monkeypatch.setenv("GITHUB_OUTPUT", str(paths["output"]))
    return paths


def comment_event(github: Any, path: Path, cid: int) -> None:
    c = github.state.comments[cid]
    payload = {
        "action": "created",
        "issue": {"number": 41, "pull_request": {}},
        "comment": github.state.comment_json(c),
    }
    path.write_text(json.dumps(payload))


def run(name: str, *args: str) -> tuple[str, int]:
    from io import StringIO

    out = StringIO()
    try:
        call_command(name, *args, stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc.returncode
    return out.getvalue(), 0


def test_dispatch_gate_pending_then_ok_then_lock_held(
    github: Any, actions: dict[str, Path]
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    head = pull["head"]["sha"]
    cid = github.state.add_comment(41, "@codex go")
    comment_event(github, actions["event"], cid)
    args = ("--event-name", "issue_comment", "--event-path", str(actions["event"]))
    out, code = run("keepalive_dispatch", *args)
    pending = f"DISPATCH: ok=false path=comment reason=gate-pending pr=#41 activation={cid} agent=codex head={head[:7]} cap=2 active=0 trace=-"
    assert (out.strip(), code) == (pending, 0)
    github.state.add_run("Gate", head, pulls=(41,))
    out, code = run("keepalive_dispatch", *args)
    ok = f"DISPATCH: ok=true path=comment reason=ok pr=#41 activation={cid} agent=codex head={head[:7]} cap=2 active=0 trace=ka-41-r1"
    assert (out.strip(), code) == (ok, 0)
    assert github.state.comments[cid]["reactions"]["rocket"] == {
        "stranske-automation-bot"
    }
    out, code = run("keepalive_dispatch", *args)
    assert " reason=lock-held " in out and code == 0
    assert actions["summary"].read_text().splitlines()[:2] == [pending, ok]
    assert "dispatch=true\nreason=ok\npr=41\n" in actions["output"].read_text()


def test_dispatch_cap_reached_counts_other_orchestrator_runs(
    github: Any, actions: dict[str, Path]
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    head = pull["head"]["sha"]
    github.state.add_run("Gate", head, pulls=(41,))
    for _ in range(2):
        github.state.add_run(
            "Agents orchestrator",
            head,
            status="in_progress",
            conclusion=None,
            pulls=(41,),
        )
    this_run = github.state.add_run(
        "Agents orchestrator", head, status="queued", conclusion=None, pulls=(41,)
    )
    os.environ["GITHUB_RUN_ID"] = str(this_run["id"])
    cid = github.state.add_comment(41, "@codex go")
    comment_event(github, actions["event"], cid)
    out, code = run(
        "keepalive_dispatch",
        "--event-name",
        "issue_comment",
        "--event-path",
        str(actions["event"]),
    )
    assert (
        " reason=cap-reached " in out
        and out.strip().endswith("cap=2 active=2 trace=-")
        and code == 0
    )
    assert github.state.comments[cid]["reactions"] == {}


# Slow by design: the command runs in a child process, as Actions runs it.
def test_dispatch_instruction_empty_fails_the_job(
    github: Any, actions: dict[str, Path]
) -> None:
    pull = github.state.add_pull(41, body="no sections")
    github.state.add_run("Gate", pull["head"]["sha"], pulls=(41,))
    cid = github.state.add_comment(41, "@codex go")
    comment_event(github, actions["event"], cid)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings_test"}
    proc = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "keepalive_dispatch",
            "--event-name",
            "issue_comment",
            "--event-path",
            str(actions["event"]),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert " reason=instruction-empty " in proc.stdout
    assert "instruction-empty" in actions["summary"].read_text()
    assert github.state.comments[cid]["reactions"] == {}


def test_dispatch_bad_event_file_and_missing_env(
    github: Any, actions: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    actions["event"].write_text("{not json")
    out, code = run(
        "keepalive_dispatch",
        "--event-name",
        "issue_comment",
        "--event-path",
        str(actions["event"]),
    )
    assert code == 2 and out == ""
    monkeypatch.delenv("GITHUB_TOKEN")
    actions["event"].write_text("{}")
    assert (
        run(
            "keepalive_dispatch",
            "--event-name",
            "issue_comment",
            "--event-path",
            str(actions["event"]),
        )[1]
        == 2
    )
    assert not actions["summary"].exists()


def test_worker_guard_skip_and_execute(github: Any, actions: dict[str, Path]) -> None:
    pull = github.state.add_pull(41)
    head = pull["head"]["sha"]
    body = "<!-- codex-keepalive-marker --> <!-- codex-keepalive-round: 1 --> <!-- codex-keepalive-trace: ka-41-r1 -->\n@codex go"
    iid = github.state.add_comment(41, body, login="stranske")
    out, code = run(
        "keepalive_worker_guard",
        "--pr",
        "41",
        "--last-instruction",
        str(iid),
        "--last-head",
        head,
    )
    assert (out.strip(), code) == (
        f"WORKER: action=skip reason=no-new-instruction-and-head-unchanged pr=#41 head={head[:7]} instr={iid} trace=ka-41-r1",
        0,
    )
    out, _ = run(
        "keepalive_worker_guard",
        "--pr",
        "41",
        "--last-instruction",
        str(iid - 1),
        "--last-head",
        head,
    )
    assert out.startswith("WORKER: action=execute reason=new-instruction pr=#41")
    assert (
        "action=skip\nreason=no-new-instruction-and-head-unchanged\n"
        in actions["output"].read_text()
    )


def test_sync_update_branch_and_escalate(github: Any, actions: dict[str, Path]) -> None:
    pull = github.state.add_pull(41)
    head = pull["head"]["sha"]
    github.state.update_moves_head.add(41)
    out, code = run(
        "keepalive_sync", "--pr", "41", "--head-before", head, "--trace", "ka-41-r1"
    )
    assert (out.strip(), code) == (
        "SYNC: action=update-branch head_changed=true trace=ka-41-r1",
        0,
    )
    github.state.update_moves_head.clear()
    new_head = github.state.pulls[41]["head"]["sha"]
    out, code = run(
        "keepalive_sync", "--pr", "41", "--head-before", new_head, "--trace", "ka-41-r2"
    )
    assert (out.strip(), code) == (
        "SYNC: action=escalate head_changed=false trace=ka-41-r2",
        1,
    )
    assert {"name": "agents:sync-required"} in github.state.pulls[41]["labels"]
    assert actions["summary"].read_text().splitlines() == [
        "SYNC: action=update-branch head_changed=true trace=ka-41-r1",
        "SYNC: action=escalate head_changed=false trace=ka-41-r2",
    ]


def test_dispatch_gate_lane_for_a_fork_pr_with_handed_over_activation(
    github: Any, actions: dict[str, Path]
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY, fork=True)
    head = pull["head"]["sha"]
    first = github.state.add_comment(41, "@codex go")
    second = github.state.add_comment(41, "@codex and again")
    gate_run = github.state.add_run("Gate", head, pulls=())
    actions["event"].write_text(
        json.dumps({"action": "completed", "workflow_run": gate_run})
    )
    out, code = run(
        "keepalive_dispatch",
        "--event-name",
        "workflow_run",
        "--event-path",
        str(actions["event"]),
        "--activation-comment",
        str(first),
    )
    assert code == 0, out
    assert out.strip() == (
        f"DISPATCH: ok=true path=gate reason=ok pr=#41 activation={first} agent=codex head={head[:7]} cap=2 active=0 trace=ka-41-r1"
    )
    assert (
        github.state.comments[first]["reactions"]["rocket"]
        and not github.state.comments[second]["reactions"]
    )


# Slow by design: the command runs in a child process, reading the event file.
def test_dispatch_reads_the_event_from_the_actions_environment(
    github: Any, actions: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    github.state.add_run("Gate", pull["head"]["sha"], pulls=(41,))
    cid = github.state.add_comment(41, "@codex go")
    comment_event(github, actions["event"], cid)
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issue_comment")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(actions["event"]))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings_test"}
    proc = subprocess.run(
        [sys.executable, "manage.py", "keepalive_dispatch"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("DISPATCH: ok=true path=comment reason=ok pr=#41 ")
    monkeypatch.delenv("GITHUB_EVENT_NAME")
    assert run("keepalive_dispatch")[1] == 2
