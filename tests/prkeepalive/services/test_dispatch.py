"""Dispatch rules through the webhook service against the fake GitHub: the
dry run replays the service's decisions, a PR waiting for a person to land
an earlier round is refused at dispatch, a trace is never used twice, and a
copy of an instruction starts nothing."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ISSUE_BODY, comment_payload, run_payload
from rest_framework.test import APIClient

from prkeepalive.core.inputs import recorded_request
from prkeepalive.models import Decision, Round

pytestmark = pytest.mark.django_db


def deliver(capture: Any, post: Any, event: str, payload: dict[str, Any]) -> None:
    with capture(execute=True):
        response = post(event, payload)
    assert response.status_code == 202, response.content


def test_explain_replays_every_decision_of_a_two_round_run_identically(
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
    owner: Any,
) -> None:
    """The round-2 Gate decision continues from round 1's instruction; the
    dry run used to answer lock-held for it (it never applied that rule)."""
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    head = pull["head"]["sha"]
    cid = github.state.add_comment(41, "@codex please continue")
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "issue_comment",
        comment_payload(github, 41, cid),
    )
    gate = github.state.add_run("Gate", head, pulls=(41,))
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "workflow_run",
        run_payload(github, gate),
    )
    new_head = github.state.move_head(41)
    worker = github.state.add_run("Agents worker", head, pulls=(41,))
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "workflow_run",
        run_payload(github, worker),
    )
    gate2 = github.state.add_run("Gate", new_head, pulls=(41,))
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "workflow_run",
        run_payload(github, gate2),
    )
    decisions = list(Decision.objects.order_by("pk"))
    assert [d.reason for d in decisions] == ["gate-pending", "ok", "ok"]
    assert decisions[-1].trace == "ka-41-r2"
    api = APIClient()
    api.force_authenticate(owner)
    for d in decisions:
        document = recorded_request(d.inputs)
        assert document is not None
        answer = api.post("/api/prkeepalive/explain", document, format="json")
        assert answer.status_code == 200
        assert answer.json()["lines"] == [d.line]


def test_sync_required_pr_is_refused_at_dispatch_as_blocked(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    pull = github.state.add_pull(
        41, body=ISSUE_BODY, labels=("agents:keepalive", "agents:sync-required")
    )
    head = pull["head"]["sha"]
    github.state.add_run("Gate", head, pulls=(41,))
    cid = github.state.add_comment(41, "@codex please continue")
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "issue_comment",
        comment_payload(github, 41, cid),
    )
    decision = Decision.objects.get()
    assert decision.line == (
        f"DISPATCH: ok=false path=comment reason=blocked pr=#41 activation={cid} "
        f"agent=codex head={head[:7]} cap=2 active=0 trace=-"
    )
    assert "agents:sync-required" in decision.detail
    assert Round.objects.count() == 0 and github.state.dispatches == []
    assert github.state.comments[cid]["reactions"] == {}  # the lock is not burnt
    # A person lands the output and removes the label: the next Gate runs it.
    pull["labels"] = [{"name": "agents:keepalive"}]
    gate = github.state.add_run("Gate", head, pulls=(41,))
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "workflow_run",
        run_payload(github, gate),
    )
    assert Decision.objects.order_by("-pk").first().trace == "ka-41-r1"
    assert len(github.state.dispatches) == 1


def test_a_gate_rerun_never_reuses_a_trace_for_a_second_round_1(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """An older activation nobody delivered stays on the PR unlocked; after
    round 1 ran from the newer one (since deleted), a re-run of Gate on the
    same head used to dispatch the older one as "round 1" again, under round
    1's trace."""
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    head = pull["head"]["sha"]
    github.state.add_run("Gate", head, pulls=(41,))
    github.state.add_comment(41, "@codex have a look")
    newer = github.state.add_comment(41, "@codex please continue")
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "issue_comment",
        comment_payload(github, 41, newer),
    )
    assert Round.objects.get().trace == "ka-41-r1"
    del github.state.comments[newer]
    rerun = github.state.add_run("Gate", head, pulls=(41,))
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "workflow_run",
        run_payload(github, rerun),
    )
    last = Decision.objects.order_by("-pk").first()
    assert not last.ok and last.reason == "lock-held"
    assert "already started from this head" in last.detail
    assert Round.objects.count() == 1 and len(github.state.dispatches) == 1


def test_a_round_that_failed_before_its_instruction_keeps_its_trace(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Round 1 failed before posting its instruction, so no marker on the PR
    names it; the older activation left is refused instead of becoming a
    second ka-41-r1."""
    repo.instruction_token = "bot"  # wrong-author: round 1 fails, posts nothing
    repo.save()
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    head = pull["head"]["sha"]
    github.state.add_run("Gate", head, pulls=(41,))
    github.state.add_comment(41, "@codex have a look")
    newer = github.state.add_comment(41, "@codex please continue")
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "issue_comment",
        comment_payload(github, 41, newer),
    )
    assert Round.objects.get().status == Round.Status.FAILED
    del github.state.comments[newer]
    rerun = github.state.add_run("Gate", head, pulls=(41,))
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "workflow_run",
        run_payload(github, rerun),
    )
    last = Decision.objects.order_by("-pk").first()
    assert last.reason == "lock-held" and "never used twice" in last.detail
    assert list(Round.objects.values_list("trace", flat=True)) == ["ka-41-r1"]


def test_an_escaped_echo_of_the_posted_instruction_starts_no_round(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """evalsite posts the instruction as the person; a copy of it whose
    markers a sanitiser escaped arrives as the person's new comment."""
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    github.state.add_run("Gate", pull["head"]["sha"], pulls=(41,))
    cid = github.state.add_comment(41, "@codex please continue")
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "issue_comment",
        comment_payload(github, 41, cid),
    )
    (instruction,) = github.state.instruction_comments(41)
    escaped = instruction["body"].replace("<", "&lt;").replace(">", "&gt;")
    echo = github.state.add_comment(41, escaped)
    deliver(
        django_capture_on_commit_callbacks,
        post_webhook,
        "issue_comment",
        comment_payload(github, 41, echo),
    )
    last = Decision.objects.order_by("-pk").first()
    assert last.reason == "markers-missing" and not last.ok
    assert len(github.state.dispatches) == 1
