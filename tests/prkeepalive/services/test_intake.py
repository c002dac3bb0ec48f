"""Webhook intake and whole rounds against the fake GitHub server."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ISSUE_BODY, comment_payload, run_payload

from prkeepalive.models import Decision, Delivery, PullRequest, Round
from tests.api_errors import error_fields
from tests.builders import pr_waiting

pytestmark = pytest.mark.django_db


def test_bad_or_missing_signature_is_401_and_stores_nothing(
    github: Any, repo: Any, post_webhook: Any
) -> None:
    number, cid = pr_waiting(github)
    payload = comment_payload(github, number, cid)
    wrong = post_webhook("issue_comment", payload, secret="not-the-secret")
    missing = post_webhook("issue_comment", payload, signature="")
    assert (wrong.status_code, missing.status_code) == (401, 401)
    assert wrong.json()["error"]["code"] == "bad_signature"
    assert Delivery.objects.count() == 0 and Decision.objects.count() == 0
    assert github.state.requests == []


def test_unhandled_event_is_202_with_reason(
    github: Any, repo: Any, post_webhook: Any
) -> None:
    response = post_webhook("push", {"repository": {"full_name": "acme/widgets"}})
    assert response.status_code == 202
    assert response.json()["status"] == "ignored"
    assert response.json()["reason"] == "event push is not handled"
    assert Delivery.objects.get().status == Delivery.Status.IGNORED


def test_ping_and_unknown_repository(github: Any, repo: Any, post_webhook: Any) -> None:
    assert post_webhook("ping", {"zen": "hi"}).json() == {"status": "pong"}
    other = post_webhook(
        "issue_comment", {"repository": {"full_name": "x/y"}, "action": "created"}
    )
    assert other.status_code == 202 and "not registered" in other.json()["reason"]


def test_malformed_payload_is_400_with_fields(
    github: Any, repo: Any, post_webhook: Any
) -> None:
    response = post_webhook(
        "issue_comment",
        {
            "repository": {"full_name": "acme/widgets"},
            "action": "created",
            "issue": {"number": "x"},
        },
    )
    assert response.status_code == 400
    assert error_fields(response) == {
        "$.comment": ["must be an object"],
        "$.issue.number": ["must be an integer"],
    }
    assert Delivery.objects.count() == 0


def test_comment_before_gate_is_gate_pending(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github, gate=None)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_webhook("issue_comment", comment_payload(github, number, cid))
    assert response.status_code == 202 and response.json()["status"] == "queued"
    head = github.state.pulls[41]["head"]["sha"][:7]
    assert Decision.objects.get().line == (
        f"DISPATCH: ok=false path=comment reason=gate-pending pr=#41 activation={cid} "
        f"agent=codex head={head} cap=2 active=0 trace=-"
    )
    assert Delivery.objects.get().status == Delivery.Status.HANDLED
    assert Round.objects.count() == 0 and github.state.dispatches == []


def test_full_round_dispatch_instruction_worker_and_sync(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github)
    head = github.state.pulls[41]["head"]["sha"]
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, number, cid), guid="g-1")
    decision = Decision.objects.get()
    assert decision.ok and decision.line == (
        f"DISPATCH: ok=true path=comment reason=ok pr=#41 activation={cid} agent=codex "
        f"head={head[:7]} cap=2 active=0 trace=ka-41-r1"
    )
    # the visible lock, by the bot
    assert github.state.comments[cid]["reactions"]["rocket"] == {
        "stranske-automation-bot"
    }
    # the instruction, by the person's token, markers on top
    (instr,) = github.state.instruction_comments(41)
    assert instr["user"]["login"] == "stranske"
    assert instr["body"].startswith(
        "<!-- codex-keepalive-marker --> <!-- codex-keepalive-round: 1 --> <!-- codex-keepalive-trace: ka-41-r1 -->\n@codex "
    )
    assert "#### Tasks\n- [ ] add a failing test" in instr["body"]
    assert instr["reactions"]["hooray"] == {"stranske"}
    rnd = Round.objects.get()
    assert rnd.status == Round.Status.RUNNING
    assert rnd.instruction_line == (
        f"INSTRUCTION: ok=true author=stranske comment={instr['id']} ack=ok head={head[:7]} trace=ka-41-r1"
    )
    assert rnd.worker_line == (
        f"WORKER: action=execute reason=new-instruction pr=#41 head={head[:7]} instr={instr['id']} trace=ka-41-r1"
    )
    assert github.state.dispatches == [
        {
            "kind": "workflow_dispatch",
            "workflow": "agents-worker.yml",
            "ref": "main",
            "inputs": {
                "pr": "41",
                "round": "1",
                "trace": "ka-41-r1",
                "agent": "codex",
                "instruction_comment_id": str(instr["id"]),
            },
        }
    ]
    assert PullRequest.objects.get().last_processed_instruction_id == instr["id"]
    # the agent's workflow finishes without moving the head: update-branch lands it
    github.state.update_moves_head.add(41)
    # a dispatched run: on main's head, no PR, the trace in its run name
    run = github.state.add_run("Agents worker", "f" * 40, pulls=())
    run["display_title"] = "keepalive ka-41-r1"
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("workflow_run", run_payload(github, run))
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.DONE
    assert (
        rnd.sync_line == "SYNC: action=update-branch head_changed=true trace=ka-41-r1"
    )
    assert rnd.head_after == github.state.pulls[41]["head"]["sha"] != head


def test_redelivery_is_a_noop(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github)
    payload = comment_payload(github, number, cid)
    with django_capture_on_commit_callbacks(execute=True):
        first = post_webhook("issue_comment", payload, guid="same")
    with django_capture_on_commit_callbacks(execute=True):
        again = post_webhook("issue_comment", payload, guid="same")
    assert first.status_code == 202
    assert again.status_code == 200 and again.json() == {
        "status": "duplicate",
        "delivery": "same",
    }
    assert Decision.objects.count() == 1 and len(github.state.dispatches) == 1


def test_second_delivery_of_same_activation_is_lock_held(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github)
    # A second delivery naming the same activation; its body differs, since
    # an identical body under a new GUID is a replay, refused before deciding.
    second = {**comment_payload(github, number, cid), "sender": {"login": "alice"}}
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, number, cid), guid="a")
        post_webhook("issue_comment", second, guid="b")
    reasons = list(Decision.objects.order_by("pk").values_list("reason", flat=True))
    assert reasons == ["ok", "lock-held"]
    assert len(github.state.dispatches) == 1 and Round.objects.count() == 1


def test_gate_lane_replays_the_activation_and_continues_rounds(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github, gate=None)
    head = github.state.pulls[41]["head"]["sha"]
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, number, cid))
    with django_capture_on_commit_callbacks(execute=True):
        gate = github.state.add_run("Gate", head, pulls=(41,))
        post_webhook("workflow_run", run_payload(github, gate))
    assert list(Decision.objects.order_by("pk").values_list("reason", "lane")) == [
        ("gate-pending", "comment"),
        ("ok", "gate"),
    ]
    # the agent pushes; Gate succeeds on the new head: round 2 continues from the instruction
    new_head = github.state.move_head(41)
    with django_capture_on_commit_callbacks(execute=True):
        worker = github.state.add_run("Agents worker", head, pulls=(41,))
        post_webhook("workflow_run", run_payload(github, worker))
    with django_capture_on_commit_callbacks(execute=True):
        gate2 = github.state.add_run("Gate", new_head, pulls=(41,))
        post_webhook("workflow_run", run_payload(github, gate2))
    last = Decision.objects.order_by("-pk").first()
    (first_instr, *_) = github.state.instruction_comments(41)
    assert (
        last.ok
        and last.trace == "ka-41-r2"
        and last.activation_comment_id == first_instr["id"]
    )
    assert (
        Round.objects.get(number=1).sync_line
        == "SYNC: action=skip head_changed=true trace=ka-41-r1"
    )


def test_fork_pr_gate_run_resolved_by_head_sha(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY, fork=True)
    github.state.add_comment(41, "@codex go")
    run = github.state.add_run("Gate", pull["head"]["sha"], pulls=())
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("workflow_run", run_payload(github, run))
    d = Decision.objects.get()
    assert d.ok and " pr=#41 " in d.line and d.lane == "gate"


def test_wrong_author_when_bot_would_post(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    repo.instruction_token = "bot"
    repo.save()
    number, cid = pr_waiting(github)
    head = github.state.pulls[41]["head"]["sha"][:7]
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, number, cid))
    rnd = Round.objects.get()
    assert rnd.status == Round.Status.FAILED
    assert (
        rnd.instruction_line
        == f"INSTRUCTION: ok=false reason=wrong-author token=PRKEEPALIVE_BOT_TOKEN head={head} trace=ka-41-r1"
    )
    assert (
        rnd.worker_line
        == f"WORKER: action=skip reason=blocked pr=#41 head={head} instr=none trace=ka-41-r1"
    )
    assert rnd.sync_line == "SYNC: action=skip head_changed=false trace=ka-41-r1"
    assert github.state.instruction_comments(41) == [] and github.state.dispatches == []


def test_branch_sync_escalates_and_labels(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github)
    head = github.state.pulls[41]["head"]["sha"]
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, number, cid))
    with django_capture_on_commit_callbacks(execute=True):
        run = github.state.add_run("Agents worker", head, pulls=(41,))
        post_webhook("workflow_run", run_payload(github, run))
    rnd = Round.objects.get()
    assert rnd.sync_line == "SYNC: action=escalate head_changed=false trace=ka-41-r1"
    assert {"name": "agents:sync-required"} in github.state.pulls[41]["labels"]
    paths = [p for m, p, _ in github.state.requests if m in ("PUT", "POST")]
    assert (
        "/repos/acme/widgets/pulls/41/update-branch" in paths
        and "/repos/acme/widgets/pulls" in paths
    )


def test_branch_sync_create_pr_lands_output(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github)
    head = github.state.pulls[41]["head"]["sha"]
    github.state.branches.add("codex/ka-41-r1")
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, number, cid))
    with django_capture_on_commit_callbacks(execute=True):
        run = github.state.add_run("Agents worker", head, pulls=(41,))
        post_webhook("workflow_run", run_payload(github, run))
    assert (
        Round.objects.get().sync_line
        == "SYNC: action=create-pr head_changed=true trace=ka-41-r1"
    )


def test_failed_delivery_is_retried_by_redelivery(
    settings: Any,
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    number, cid = pr_waiting(github)
    payload = comment_payload(github, number, cid)
    settings.PRKEEPALIVE_GITHUB_RETRIES = 1
    github.state.fail_next = [(500, {})] * 2
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", payload, guid="flaky")
    delivery = Delivery.objects.get()
    assert delivery.status == Delivery.Status.FAILED and "GitHubError" in delivery.error
    assert Decision.objects.count() == 0
    with django_capture_on_commit_callbacks(execute=True):
        again = post_webhook("issue_comment", payload, guid="flaky")
    assert again.status_code == 202
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.HANDLED and delivery.attempts == 2
    assert Decision.objects.get().ok


def test_a_gate_run_while_the_instruction_is_being_posted_starts_no_second_round(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Round 1 posts its instruction comment, then its ack reaction, then
    stores the comment id. A Gate run of the same head decided in between saw
    the new instruction comment but no round naming it, took it as the hand-
    over and dispatched round 2 from the head round 1 had started from
    (bench/prkeepalive.py's burst: 1 double dispatch in 350). The round is
    now recognised by the trace its instruction carries."""
    number, cid = pr_waiting(github)
    head = github.state.pulls[41]["head"]["sha"]
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, number, cid))
    assert len(github.state.dispatches) == 1
    # The window: the instruction is on GitHub, the round does not name it yet.
    Round.objects.filter(number=1).update(instruction_comment_id=None)
    with django_capture_on_commit_callbacks(execute=True):
        gate = github.state.add_run("Gate", head, pulls=(41,))
        post_webhook("workflow_run", run_payload(github, gate))
    assert len(github.state.dispatches) == 1
    assert Decision.objects.filter(ok=True).count() == 1
    assert not Round.objects.filter(number=2).exists()
