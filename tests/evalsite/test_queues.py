"""Every task goes to its queue (runs, gridworld, keepalive, maintenance):
routed by name, an explicit queue wins, each queue has its own exchange so a
message lands in one queue only, and a worker started without ``-Q`` (the
demo's) consumes them all."""

from __future__ import annotations

from importlib import import_module
from typing import Any

import pytest
from kombu import Connection

from evalsite.celery import (
    DEFAULT_QUEUE,
    QUEUE_NAMES,
    TASK_QUEUES,
    app,
)

TASK_PACKAGES = ("evalsite", "stream", "evals", "gridworld", "prkeepalive", "traces")


def _project_task_names() -> set[str]:
    for package in TASK_PACKAGES:
        try:
            import_module(f"{package}.tasks")
        except ModuleNotFoundError:
            continue
    return {name for name in app.tasks if not name.startswith("celery.")}


def _queue_of(name: str, **options: str) -> str:
    return app.amqp.router.route(options, name, args=(), kwargs={})["queue"].name


EXPECTED = {
    "evals.run_chunk": "runs",
    "evals.finalize_run": "runs",
    "evalsite.selfcheck_part": "runs",
    "evalsite.selfcheck_done": "runs",
    "prkeepalive.process_delivery": "keepalive",
    "prkeepalive.start_round": "keepalive",
    "evalsite.record_heartbeat": "maintenance",
    "stream.keepalive_tick_all": "maintenance",
    "stream.keepalive_tick": "maintenance",
    "stream.prune_all": "maintenance",
    "stream.log_agency_counters": "maintenance",
    "stream.planning_poll_all": "maintenance",
    "stream.planning_poll": "maintenance",
    "evals.sweep_stale_runs": "maintenance",
    "prkeepalive.reconcile_all": "maintenance",
    "traces.prune_spans": "maintenance",
    "traces.sweep_score_exports": "maintenance",
    "traces.send_score_export": "maintenance",
    "stream.retention_sweep": "maintenance",
    "evals.retention_sweep": "maintenance",
    "stream.thought_partitions_ahead": "maintenance",
    "search.index_pass": "maintenance",
}


@pytest.mark.parametrize(("name", "queue"), sorted(EXPECTED.items()))
def test_each_task_name_is_routed_to_its_queue(name: str, queue: str) -> None:
    assert _queue_of(name) == queue


def test_every_registered_task_has_a_queue_in_the_table() -> None:
    assert _project_task_names() <= set(TASK_QUEUES) == set(EXPECTED)


def test_every_beat_task_goes_to_maintenance() -> None:
    from django.conf import settings

    beat = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {_queue_of(name) for name in beat} == {"maintenance"}


def test_a_gridworld_batch_sent_with_its_queue_goes_to_gridworld() -> None:
    assert _queue_of("evals.run_chunk", queue="gridworld") == "gridworld"
    assert _queue_of("evals.finalize_run", queue="gridworld") == "gridworld"


def test_an_unlisted_task_goes_to_the_default_queue() -> None:
    assert _queue_of("celery.chord_unlock") == DEFAULT_QUEUE == "celery"


def test_a_worker_without_q_consumes_every_queue() -> None:
    """What the demo's worker runs: Celery consumes every declared queue
    when no ``-Q`` selects some (queues made on the fly by other tests'
    workers may be there too)."""
    declared = {queue.name for queue in app.conf.task_queues}
    assert (
        declared
        == set(QUEUE_NAMES)
        == {
            "runs",
            "gridworld",
            "keepalive",
            "maintenance",
            "celery",
        }
    )
    assert declared <= set(app.amqp.queues.consume_from)


def test_each_queue_has_its_own_exchange_and_routing_key() -> None:
    for name in QUEUE_NAMES:
        queue = app.amqp.queues[name]
        assert (queue.exchange.name, queue.exchange.type, queue.routing_key) == (
            name,
            "direct",
            name,
        )


def test_a_message_sent_to_one_queue_lands_in_that_queue_only() -> None:
    """Published the way Celery publishes (the queue declared with its
    exchange), on kombu's in-memory transport: no copy in another queue."""
    with Connection("memory://") as conn:
        channel = conn.channel()
        queues = [app.amqp.queues[name].bind(channel) for name in QUEUE_NAMES]
        for queue in queues:
            queue.declare()
        target = app.amqp.queues["keepalive"]
        producer = conn.Producer(channel)
        producer.publish(
            {"x": 1},
            exchange=target.exchange,
            routing_key=target.routing_key,
            declare=[target],
        )
        held = {
            queue.name: queue.queue_declare(passive=True).message_count
            for queue in queues
        }
    assert held == {name: (1 if name == "keepalive" else 0) for name in QUEUE_NAMES}


def test_a_run_goes_to_the_queue_of_its_benchmark_kind() -> None:
    """The routing decision the run lifecycle makes when no queue is given:
    gridworld batches on ``gridworld``, every other kind (a scenario suite,
    a kind added later) on ``runs``."""
    from evalsite.celery import RUN_KIND_QUEUES, run_queue

    assert RUN_KIND_QUEUES == {"gridworld": "gridworld"}
    assert run_queue("gridworld") == "gridworld"
    assert run_queue("suite") == "runs"
    assert run_queue("a-kind-added-later") == "runs"
    assert set(RUN_KIND_QUEUES.values()) <= set(QUEUE_NAMES)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "given", "sent_to"),
    [
        ("gridworld", None, "gridworld"),
        ("suite", None, "runs"),
        ("gridworld", "special", "special"),
    ],
)
def test_enqueueing_a_run_sends_it_to_its_kind_queue_unless_one_is_given(
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
    kind: str,
    given: str | None,
    sent_to: str,
) -> None:
    """``run_enqueue`` (the API's start and the sweeper's resend) picks the
    queue; an explicit one (``gridworld_run --queue``) wins."""
    from django.utils import timezone

    from evals.services.runs import lifecycle

    sent: list[str | None] = []
    monkeypatch.setattr(
        lifecycle,
        "_schedule",
        lambda run_pk, chunks, *, queue, **kw: sent.append(queue),
    )
    benchmark = lifecycle.benchmark_upsert(
        benchmark_id=f"b-{kind}", kind=kind, title="t", case_count=1
    )
    run = lifecycle.run_create(
        benchmark=benchmark,
        run_id=f"r-{kind}",
        started_at=timezone.now(),
        total_cases=1,
        config={},
        schedule=False,
    )

    with django_capture_on_commit_callbacks(execute=True):
        lifecycle.run_enqueue(run=run, queue=given, case_ids=["c1"])

    assert sent == [sent_to]
