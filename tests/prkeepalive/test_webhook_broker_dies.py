"""A Redis broker that dies (a throwaway ``redis-server`` killed by pid):
a signed webhook is answered 202 ``stored`` in about a second, never a 500,
and GitHub need not redeliver. Once a broker answers again the reconciler
sends the delivery, a GitHub redelivery of it is sent too (it never ran, so
it is no duplicate), and the worker runs it once."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from conftest import comment_payload

from prkeepalive.models import Decision, Delivery
from prkeepalive.services.reconcile import requeue_stale_deliveries
from prkeepalive.services.sending import NOT_SENT
from tests.builders import pr_waiting
from tests.celery_broker import celery_pointed
from tests.throwaway import RedisServer, redis_server

pytestmark = [pytest.mark.redis, pytest.mark.integration]


@pytest.fixture
def point_broker(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``point_broker(server)``: the real Celery app publishes to ``server``
    (not eagerly); the app's configuration is restored afterwards."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with celery_pointed(monkeypatch) as point:
        yield lambda server: point(server.url())


def drain(server: RedisServer) -> list[tuple[str, Any]]:
    """Run every message on ``server``'s queues here (tasks are routed by
    name to their queue), oldest first, until all are empty; returns
    ``(task name, result)`` of each."""
    from evalsite.celery import QUEUE_NAMES, app

    queue = redis.Redis.from_url(server.url())
    ran: list[tuple[str, Any]] = []

    def next_message() -> bytes | None:
        for name in QUEUE_NAMES:
            raw = queue.rpop(name)
            if raw is not None:
                return raw
        return None

    while (raw := next_message()) is not None:
        message = json.loads(raw)
        args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
        name = message["headers"]["task"]
        ran.append((name, app.tasks[name].apply(args=args, kwargs=kwargs).get()))
    return ran


def test_a_webhook_during_a_broker_outage_is_stored_and_runs_once_when_it_is_back(
    transactional_db: Any,
    tmp_path: Path,
    github: Any,
    repo: Any,
    post_webhook: Any,
    point_broker: Any,
    log_lines: Any,
) -> None:
    from prkeepalive.tasks.deliveries import process_delivery

    number, cid = pr_waiting(github)
    payload = comment_payload(github, number, cid)
    with redis_server(tmp_path / "first") as first:
        point_broker(first)
        # Up first, as in production: the web process holds a live connection.
        process_delivery.delay(0)
        first.kill()

        began = time.monotonic()
        response = post_webhook("issue_comment", payload, guid="g-1")
        elapsed = time.monotonic() - began

    assert response.status_code == 202, response.content
    assert response.json()["status"] == "stored"
    assert elapsed < 3, elapsed
    print(f"\nwebhook during the broker outage: 202 stored in {elapsed * 1000:.0f} ms")
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.error) == (Delivery.Status.QUEUED, NOT_SENT)
    [line] = log_lines("[PRKeepalive] delivery_not_sent")
    assert line.startswith("[PRKeepalive] delivery_not_sent guid=g-1 error=")
    # GitHub's redelivery while the broker is down: stored again, no 500.
    again = post_webhook("issue_comment", payload, guid="g-1")
    assert (again.status_code, again.json()["status"]) == (202, "stored")
    assert requeue_stale_deliveries() == 0
    assert github.state.requests == []

    with redis_server(tmp_path / "second") as second:
        point_broker(second)
        assert requeue_stale_deliveries() == 1
        redelivered = post_webhook("issue_comment", payload, guid="g-1")
        assert redelivered.json() == {"status": "queued", "delivery": "g-1"}
        ran = drain(second)

    assert ran[:2] == [
        ("prkeepalive.process_delivery", "handled"),
        ("prkeepalive.process_delivery", "skipped"),
    ]
    assert [name for name, _ in ran[2:]] == ["prkeepalive.start_round"]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.error) == (
        Delivery.Status.HANDLED,
        1,
        "",
    )
    assert Decision.objects.get().ok
    assert len(github.state.dispatches) == 1
