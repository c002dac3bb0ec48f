"""``manage.py eval_run``: exit codes, printed diagnostics, progress, summary."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals.models import Benchmark, CaseResult, Run, SuiteVersion

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "evals" / "suites"


def eval_run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("eval_run", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def stored_counts() -> tuple[int, int, int, int]:
    return (
        Benchmark.objects.count(),
        SuiteVersion.objects.count(),
        Run.objects.count(),
        CaseResult.objects.count(),
    )


@pytest.fixture
def broken_suite(tmp_path: Path) -> Path:
    good = (SHIPPED / "smoke.jsonl").read_text("utf-8").splitlines()[0]
    suite = tmp_path / "broken.jsonl"
    suite.write_text(
        f'{{"scenario_id": "x", "surprise": true}}\n{good}\n\nnot json at all\n',
        encoding="utf-8",
    )
    return suite


SMOKE = [
    "--suite",
    str(SHIPPED / "smoke.jsonl"),
    "--profile",
    "balanced",
    "--mode",
    "thought_only",
    "--model",
    "scripted",
]


def test_ev_c2_invalid_suite_exits_2_printing_every_line_and_stores_nothing(
    broken_suite: Path, log_lines: Any
) -> None:
    err = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command(
            "eval_run",
            "--suite",
            str(broken_suite),
            "--profile",
            "minimal",
            "--mode",
            "thought_only",
            "--model",
            "baseline",
            "--wait",
            stderr=err,
        )

    assert caught.value.returncode == 2
    assert str(caught.value) == (
        f"{broken_suite}: 2 invalid line(s); nothing was run or stored"
    )
    printed = err.getvalue().splitlines()
    assert printed[0].startswith(f"{broken_suite}: line 1: errors=[")
    assert '"message":"unknown property: surprise"' in printed[0]
    assert printed[1] == (
        f"{broken_suite}: line 4: errors="
        '[{"path":"$","message":"invalid JSON: Expecting value at column 1"}]'
    )
    assert len(printed) == 2
    assert [
        line.split(" errors=")[0] for line in log_lines("[Eval] suite_invalid")
    ] == [
        f"[Eval] suite_invalid path={broken_suite} line=1",
        f"[Eval] suite_invalid path={broken_suite} line=4",
    ]
    assert stored_counts() == (0, 0, 0, 0)


# Slow by design: the exit status a shell sees needs a real manage.py process.
def test_ev_c2_real_process_exit_code_is_2(broken_suite: Path, tmp_path: Path) -> None:
    """The exit status a shell sees; the database named here is never even
    opened, so nothing can have been stored."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        DJANGO_DEBUG="true",
        DATABASE_URL=f"sqlite:///{tmp_path / 'untouched.sqlite3'}",
        LOG_LEVEL="ERROR",
    )
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "eval_run",
            "--suite",
            str(broken_suite),
            "--profile",
            "minimal",
            "--mode",
            "thought_only",
            "--model",
            "baseline",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 2
    assert f"{broken_suite}: line 1: errors=" in result.stderr
    assert f"{broken_suite}: line 4: errors=" in result.stderr
    assert not (tmp_path / "untouched.sqlite3").exists()


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--profile", "huge", "unknown profile 'huge'; one of minimal, balanced, rich"),
        (
            "--mode",
            "both",
            "unknown mode 'both'; one of thought_only, end_to_end",
        ),
        (
            "--model",
            "gpt",
            "unknown model 'gpt'; one of scripted, baseline, openai",
        ),
        (
            "--sampler",
            "hot",
            "unknown sampler 'hot'; one of creative, low-variance, standard",
        ),
    ],
)
def test_unknown_option_exits_2(flag: str, value: str, message: str) -> None:
    args = [*SMOKE, flag, value] if flag in ("--sampler",) else list(SMOKE)
    if flag != "--sampler":
        args[args.index(flag) + 1] = value

    with pytest.raises(CommandError) as caught:
        eval_run(*args)

    assert (caught.value.returncode, str(caught.value)) == (2, message)
    assert stored_counts() == (0, 0, 0, 0)


def test_wait_runs_here_prints_the_summary_and_exits_0(artifacts: Path) -> None:
    out, err = eval_run(*SMOKE, "--wait", "--seed", "4")

    run = Run.objects.get()
    lines = out.splitlines()
    assert lines[0] == (
        f"run {run.run_id} completed: suite smoke, profile balanced, mode "
        "thought_only, model scripted:smoke.script.jsonl, sampler standard, seed 4"
    )
    assert lines[1] == (
        "action_rate=0.4 grounding_pass_rate=1 repetition_rate=0 "
        "compulsion_proxy=0 latency_p95_ms=455.1"
    )
    assert lines[2] == "hallucinations=0 compulsions=0 inertia=0 errors=0"
    assert lines[3] == "cases: 5 passed, 0 failed of 5"
    assert lines[4] == "verdict: PASS (properties satisfied; action_rate may be zero)"
    assert lines[5] == f"artifacts: {run.artifacts_dir}"
    assert lines[6] == f"url: http://127.0.0.1:8000/evals/runs/{run.run_id}/"
    # stderr is no TTY here: plain lines; five results are one stored batch.
    assert err.splitlines() == ["progress 5/5 (100%)"]
    assert Path(run.artifacts_dir, "summary.json").is_file()
    assert run.config["startedVia"] == "cli"


def test_wait_on_the_regressed_script_exits_1() -> None:
    out = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command(
            "eval_run",
            "--suite",
            str(SHIPPED / "idle-v1.jsonl"),
            "--profile",
            "minimal",
            "--mode",
            "thought_only",
            "--model",
            "scripted",
            "--script",
            str(SHIPPED / "idle-v1-regressed.script.jsonl"),
            "--wait",
            stdout=out,
            stderr=StringIO(),
        )

    assert (caught.value.returncode, str(caught.value)) == (1, "FAIL: no_compulsion")
    assert "verdict: FAIL (failed: no_compulsion)" in out.getvalue().splitlines()
    assert Run.objects.get().verdict_passed is False


def test_default_script_is_the_one_beside_the_suite(tmp_path: Path) -> None:
    shutil.copy(SHIPPED / "smoke.jsonl", tmp_path / "mine.jsonl")
    rows = [
        json.loads(line)
        for line in (SHIPPED / "smoke.script.jsonl").read_text().splitlines()
    ]
    for row in rows:
        row["output"] = "Quiet."
    (tmp_path / "mine.script.jsonl").write_text(
        "\n".join(json.dumps(r) for r in rows) + "\n"
    )

    eval_run(
        "--suite",
        str(tmp_path / "mine.jsonl"),
        "--profile",
        "minimal",
        "--mode",
        "thought_only",
        "--model",
        "scripted",
        "--wait",
    )

    run = Run.objects.get()
    assert run.config["script"] == str(tmp_path / "mine.script.jsonl")
    assert run.metrics["action_rate"] == 0.0
    # Five identical outputs: every one after the first repeats one of the
    # previous five.
    assert run.metrics["repetition_rate"] == 0.8


def test_without_wait_the_run_is_queued_and_its_link_printed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        out, _ = eval_run(*SMOKE, "--base-url", "https://evals.example/")

    run = Run.objects.get()
    assert out.splitlines() == [
        f"run {run.run_id} queued (5 scenarios)",
        f"url: https://evals.example/evals/runs/{run.run_id}/",
    ]
    assert run.status == Run.Status.QUEUED
    assert len(callbacks) == 1


def test_unknown_user_exits_2() -> None:
    with pytest.raises(CommandError) as caught:
        eval_run(*SMOKE, "--user", "nobody")

    assert (caught.value.returncode, str(caught.value)) == (
        2,
        "no user named 'nobody'",
    )


def test_user_is_recorded_as_the_runs_creator(owner: Any) -> None:
    eval_run(*SMOKE, "--user", "alice", "--wait")

    assert Run.objects.get().created_by == owner


def test_progress_without_a_tty_prints_a_line_per_tenth() -> None:
    from django.core.management.base import OutputWrapper

    from evals.management.commands.eval_run import Progress

    out = StringIO()
    progress = Progress(OutputWrapper(out), is_tty=False)
    for done in (3, 10, 11, 20, 25, 40):
        progress(done, 40)

    assert out.getvalue().splitlines() == [
        "progress 3/40 (7%)",
        "progress 10/40 (25%)",
        "progress 20/40 (50%)",
        "progress 25/40 (62%)",
        "progress 40/40 (100%)",
    ]


def test_progress_on_a_tty_redraws_one_bar() -> None:
    from django.core.management.base import OutputWrapper

    from evals.management.commands.eval_run import Progress

    out = StringIO()
    progress = Progress(OutputWrapper(out), is_tty=True)
    progress(10, 40)
    progress(40, 40)
    progress.finish()

    bar = "#" * 7 + "-" * 23
    assert out.getvalue() == f"\r[{bar}] 10/40\r[{'#' * 30}] 40/40\n"


@pytest.mark.parametrize("name", ["smoke", "smoke.jsonl"])
def test_suite_by_its_shipped_name(name: str) -> None:
    """``--suite smoke``, the name the pages and the API use, as well as a path."""
    args = [name if a == str(SHIPPED / "smoke.jsonl") else a for a in SMOKE]
    out, _ = eval_run(*args, "--wait", "--seed", "4")
    assert out.splitlines()[0].startswith("run ")
    assert "suite smoke," in out.splitlines()[0]
    run = Run.objects.get()
    assert run.benchmark.benchmark_id == "smoke"


def test_unknown_suite_name_lists_the_shipped_suites() -> None:
    args = ["no-such-suite" if a == str(SHIPPED / "smoke.jsonl") else a for a in SMOKE]
    with pytest.raises(CommandError) as caught:
        eval_run(*args, "--wait")
    assert caught.value.returncode == 2
    message = str(caught.value)
    assert message.startswith(
        "no suite 'no-such-suite': not a file, and not a shipped suite ("
    )
    assert "smoke" in message and "idle-v1" in message
    assert stored_counts() == (0, 0, 0, 0)
