"""A captured signed delivery replayed under new GUIDs is recorded as
``replayed`` and never processed while the replay window lasts; GitHub's
own redeliveries keep their GUID and are not replays."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import comment_payload
from django.utils import timezone

from prkeepalive.models import Decision, Delivery
from tests.builders import pr_waiting

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_twenty_replays_with_new_guids_make_no_github_call(
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
    log_lines: Any,
) -> None:
    number, cid = pr_waiting(github)
    payload = comment_payload(github, number, cid)
    with django_capture_on_commit_callbacks(execute=True):
        first = post_webhook("issue_comment", payload, guid="original")
    assert first.status_code == 202
    calls = len(github.state.requests)
    assert calls > 0 and len(github.state.dispatches) == 1

    answers = []
    for i in range(20):
        with django_capture_on_commit_callbacks(execute=True):
            answers.append(post_webhook("issue_comment", payload, guid=f"replay-{i}"))

    assert [(a.status_code, a.json()) for a in answers] == [
        (200, {"status": "replayed", "delivery": f"replay-{i}", "original": "original"})
        for i in range(20)
    ]
    assert len(github.state.requests) == calls
    assert len(github.state.dispatches) == 1 and Decision.objects.count() == 1
    replays = Delivery.objects.filter(status=Delivery.Status.REPLAYED)
    assert replays.count() == 20
    assert {(r.reason, r.pull_number, r.payload == {}) for r in replays} == {
        ("repeats delivery original (same event and body)", number, True)
    }
    assert log_lines("[PRKeepalive] webhook_replayed")[0] == (
        "[PRKeepalive] webhook_replayed event=issue_comment guid=replay-0 "
        "original=original"
    )
    # A replayed GUID sent again is a duplicate, not a second replay row.
    again = post_webhook("issue_comment", payload, guid="replay-0")
    assert again.json() == {"status": "duplicate", "delivery": "replay-0"}
    assert Delivery.objects.count() == 21


def test_github_redelivery_keeps_its_guid_and_is_not_a_replay(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """A redelivery of a delivery that never ran (its message was lost) is
    sent again and processed once; a redelivery of a handled one does
    nothing."""
    number, cid = pr_waiting(github)
    payload = comment_payload(github, number, cid)
    stored = post_webhook("issue_comment", payload, guid="g-1")  # never sent
    assert stored.status_code == 202
    assert Delivery.objects.get().status == Delivery.Status.QUEUED

    with django_capture_on_commit_callbacks(execute=True):
        redelivered = post_webhook("issue_comment", payload, guid="g-1")
    assert redelivered.status_code == 202
    assert redelivered.json() == {"status": "queued", "delivery": "g-1"}
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.HANDLED, 1)
    assert Decision.objects.count() == 1 and len(github.state.dispatches) == 1

    with django_capture_on_commit_callbacks(execute=True):
        handled = post_webhook("issue_comment", payload, guid="g-1")
    assert handled.json() == {"status": "duplicate", "delivery": "g-1"}
    assert Decision.objects.count() == 1


def test_the_same_body_after_the_window_is_processed(
    settings: Any,
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.PRKEEPALIVE_REPLAY_WINDOW_S = 3600
    body = {"action": "opened", "repository": {"full_name": "acme/widgets"}}
    post_webhook("push", body, guid="old")
    Delivery.objects.filter(guid="old").update(
        received_at=timezone.now() - timedelta(seconds=3601)
    )
    later = post_webhook("push", body, guid="new")
    assert later.json()["status"] == "ignored"
    # Another event with the same body is not a replay either.
    other = post_webhook("create", body, guid="other")
    assert other.json()["status"] == "ignored"
    # Within the window of the second one it is.
    third = post_webhook("push", body, guid="third")
    assert third.json() == {
        "status": "replayed",
        "delivery": "third",
        "original": "new",
    }


def test_a_window_of_zero_turns_the_check_off(
    settings: Any, github: Any, repo: Any, post_webhook: Any
) -> None:
    settings.PRKEEPALIVE_REPLAY_WINDOW_S = 0
    body = {"action": "opened", "repository": {"full_name": "acme/widgets"}}
    statuses = [post_webhook("push", body).json()["status"] for _ in range(3)]
    assert statuses == ["ignored"] * 3


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("-1", "error: PRKEEPALIVE_REPLAY_WINDOW_S must be >= 0, got -1\n"),
        ("1h", "error: PRKEEPALIVE_REPLAY_WINDOW_S must be an integer, got '1h'\n"),
    ],
)
def test_a_malformed_replay_window_stops_start_up_with_one_line(
    value: str, line: str
) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "PRKEEPALIVE_", "DATABASE_URL", "CELERY_"))
    }
    env.update(
        DJANGO_DEBUG="true", EVALSITE_ENV_FILE="", PRKEEPALIVE_REPLAY_WINDOW_S=value
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (result.returncode, result.stdout, result.stderr) == (2, "", line)
