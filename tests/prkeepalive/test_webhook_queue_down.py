"""A delivery the task queue did not take stays stored and runs later: the
webhook answers 202 ``stored`` (GitHub need not redeliver) and the
reconciler sends every delivery that waits without a message on the queue.
The same with a real Redis that dies is in test_webhook_broker_dies.py."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from conftest import comment_payload
from django.utils import timezone
from kombu.exceptions import OperationalError

from prkeepalive.models import Decision, Delivery
from prkeepalive.services.reconcile import requeue_stale_deliveries
from prkeepalive.services.sending import NOT_SENT
from prkeepalive.tasks.deliveries import process_delivery
from tests.builders import pr_waiting

pytestmark = pytest.mark.django_db

STORED = {
    "status": "stored",
    "delivery": "g-1",
    "detail": "The task queue is unreachable; the delivery is stored and runs "
    "when the queue answers again (no redelivery needed).",
}


@pytest.fixture
def queue_down(monkeypatch: pytest.MonkeyPatch) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("Error 111 connecting to 127.0.0.1:6399.")

    monkeypatch.setattr(process_delivery, "delay", refuse)
    return monkeypatch


def test_a_delivery_the_queue_refused_is_stored_202_and_the_reconciler_runs_it_once(
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
    queue_down: pytest.MonkeyPatch,
    log_lines: Any,
) -> None:
    number, cid = pr_waiting(github)
    payload = comment_payload(github, number, cid)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_webhook("issue_comment", payload, guid="g-1")

    # The answer is decided after the commit: captured callbacks run at the
    # end of the block, so the row tells what happened.
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.error) == (Delivery.Status.QUEUED, NOT_SENT)
    assert delivery.retry_at is not None
    assert response.status_code == 202
    assert log_lines("[PRKeepalive] delivery_not_sent") == [
        "[PRKeepalive] delivery_not_sent guid=g-1 error=OperationalError"
    ]
    # Still down: the reconciler leaves it for its next run.
    with django_capture_on_commit_callbacks(execute=True):
        assert requeue_stale_deliveries() == 0
    assert Delivery.objects.get().error == NOT_SENT
    assert github.state.requests == []

    queue_down.undo()
    with django_capture_on_commit_callbacks(execute=True):
        assert requeue_stale_deliveries() == 1
        assert requeue_stale_deliveries() == 0
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.error) == (
        Delivery.Status.HANDLED,
        1,
        "",
    )
    assert Decision.objects.count() == 1 and len(github.state.dispatches) == 1
    assert log_lines("[PRKeepalive] delivery_requeued") == [
        "[PRKeepalive] delivery_requeued guid=g-1 was=queued"
    ]


def test_the_webhook_answers_stored_when_the_send_after_commit_fails(
    transactional_db: Any,
    github: Any,
    repo: Any,
    post_webhook: Any,
    queue_down: pytest.MonkeyPatch,
) -> None:
    """Outside a test transaction the commit happens in the request, so the
    answer itself says the delivery is stored and not yet sent."""
    number, cid = pr_waiting(github)
    response = post_webhook(
        "issue_comment", comment_payload(github, number, cid), guid="g-1"
    )
    assert (response.status_code, response.json()) == (202, STORED)
    # A redelivery of a delivery that never ran is not a duplicate.
    again = post_webhook(
        "issue_comment", comment_payload(github, number, cid), guid="g-1"
    )
    assert (again.status_code, again.json()) == (202, STORED)
    assert Delivery.objects.get().status == Delivery.Status.QUEUED


@pytest.mark.parametrize(
    ("status", "field"),
    [
        (Delivery.Status.QUEUED, "updated_at"),
        (Delivery.Status.RETRYING, "retry_at"),
        (Delivery.Status.PROCESSING, "updated_at"),
    ],
)
def test_a_delivery_whose_message_the_broker_lost_is_sent_again(
    settings: Any,
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
    status: str,
    field: str,
) -> None:
    """Queued, retrying or processing past PRKEEPALIVE_STALE_DELIVERY_S with
    no message left on the queue (a broker without persistence restarted)."""
    number, cid = pr_waiting(github)
    post_webhook("issue_comment", comment_payload(github, number, cid), guid="g-1")
    long_ago = timezone.now() - timedelta(
        seconds=settings.PRKEEPALIVE_STALE_DELIVERY_S + 5
    )
    Delivery.objects.update(status=status, **{field: long_ago})
    fresh = Delivery.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        assert requeue_stale_deliveries() == 1
    fresh.refresh_from_db()
    assert fresh.status == Delivery.Status.HANDLED
    assert Decision.objects.count() == 1 and len(github.state.dispatches) == 1


def test_a_queued_delivery_younger_than_the_stale_time_is_left_alone(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    number, cid = pr_waiting(github)
    post_webhook("issue_comment", comment_payload(github, number, cid), guid="g-1")
    with django_capture_on_commit_callbacks(execute=True):
        assert requeue_stale_deliveries() == 0
    assert Delivery.objects.get().status == Delivery.Status.QUEUED
