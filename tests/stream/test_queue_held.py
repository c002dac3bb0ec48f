"""SC-B4 with the queue's held count (``AgencyCounters.queue_held``): a
publish below the cap never reads the queue, whatever its size or the cap;
the cap still holds after a bulk load, a lowered cap and concurrent
publishers (the last on real PostgreSQL)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from stream.models import AgencyCounters, Thought
from stream.services.thoughts import ThoughtInput, thoughts_publish
from tests.builders import thoughts_loaded


def _held(agent: Any) -> int | None:
    return AgencyCounters.objects.get(agent=agent).queue_held


def _publish(agent: Any, *texts: str) -> None:
    thoughts_publish(agent=agent, items=[ThoughtInput(content=t) for t in texts])


@pytest.mark.django_db
@override_settings(STREAM_QUEUE_HARD_CAP=1_000_000)
def test_sc_b4_below_a_large_cap_a_publish_never_reads_the_queue(agent: Any) -> None:
    thoughts_loaded(agent, 300)
    _publish(agent, "Counted once.")  # the held count was unknown: counted
    assert _held(agent) == 301
    with CaptureQueriesContext(connection) as queries:
        _publish(agent, "A quiet day by the river.")
        _publish(agent, "Three at once.", "Two.", "One.")
    reads = [q["sql"] for q in queries.captured_queries if "OFFSET" in q["sql"]]
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"]]
    assert reads == [] and counts == []
    assert _held(agent) == Thought.objects.filter(agent=agent).count() == 305


@pytest.mark.django_db
def test_sc_b4_the_held_count_is_never_below_the_queue_after_deletions(
    agent: Any, settings: Any
) -> None:
    settings.STREAM_QUEUE_HARD_CAP = 10
    _publish(agent, *(f"Seen {n}." for n in range(8)))
    Thought.objects.filter(agent=agent).order_by("pk")[:1].get().delete()
    # Deleted outside the publish path: held stays above the queue (safe)
    assert _held(agent) == 8 > Thought.objects.filter(agent=agent).count() == 7
    # held 11 > 10: the queue is counted, holds 10 (not over), nothing pruned
    _publish(agent, "Nine.", "Ten.", "Eleven.")
    assert Thought.objects.filter(agent=agent).count() == 10
    assert _held(agent) == 10
    _publish(agent, "Eleven now.")  # over: pruned to 95% of the cap
    assert Thought.objects.filter(agent=agent).count() == 9
    assert _held(agent) == 9


@pytest.mark.django_db
def test_sc_b4_a_lowered_cap_holds_at_the_next_publish(
    agent: Any, settings: Any
) -> None:
    settings.STREAM_QUEUE_HARD_CAP = 100
    _publish(agent, *(f"Seen {n}." for n in range(40)))
    assert Thought.objects.filter(agent=agent).count() == 40
    settings.STREAM_QUEUE_HARD_CAP = 20
    _publish(agent, "After the restart.")
    assert Thought.objects.filter(agent=agent).count() == 19


@pytest.mark.django_db
def test_sc_b4_a_bulk_load_that_forgets_the_count_is_capped_at_the_next_publish(
    agent: Any, settings: Any
) -> None:
    settings.STREAM_QUEUE_HARD_CAP = 20
    _publish(agent, "First.")
    thoughts_loaded(agent, 30)
    assert _held(agent) is None
    _publish(agent, "Over the cap now.")
    assert Thought.objects.filter(agent=agent).count() == 19
    assert _held(agent) == 19


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_sc_b4_concurrent_publishers_never_leave_the_queue_past_the_cap(
    agent: Any, settings: Any
) -> None:
    """Six threads publish 40 thoughts each, one at a time, against a cap of
    50: after every answer the queue holds at most the cap, and at the end
    the held count is not below the queue."""
    settings.STREAM_QUEUE_HARD_CAP = 50
    barrier = threading.Barrier(6)
    sizes: list[int] = []
    errors: list[BaseException] = []

    def publisher(name: str) -> None:
        try:
            barrier.wait()
            for n in range(40):
                _publish(agent, f"{name} saw {n}.")
                sizes.append(Thought.objects.filter(agent=agent).count())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=publisher, args=(f"p{i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert len(sizes) == 240
    # A count read right after an answer may see other publishers' rows
    # stored before their own check ran: at most one each in flight.
    assert max(sizes) <= 50 + 5
    final = Thought.objects.filter(agent=agent).count()
    assert final <= 50
    held = _held(agent)
    assert held is not None and held >= final
