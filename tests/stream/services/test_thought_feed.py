"""Two planners acking the same 10,000 thoughts at once (real PostgreSQL)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from stream.models import Thought
from stream.services.thought_feed import thoughts_ack

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

N = 10_000


def test_parallel_acks_process_every_thought_exactly_once(agent: Any) -> None:
    now = timezone.now()
    Thought.objects.bulk_create(
        Thought(
            agent=agent,
            type="reflection",
            content=f"goal {i}",
            content_hash=f"{i:016x}",
            convert_eligible=True,
            eligibility_reason="eligible",
            grounding_passed=True,
            goal_key=f"collect:item_{i}",
            source="agent",
            created_at=now,
        )
        for i in range(N)
    )
    ids = list(Thought.objects.filter(agent=agent).values_list("pk", flat=True))
    results: dict[str, Any] = {}
    barrier = threading.Barrier(2)

    def planner(name: str, order: list[int]) -> None:
        try:
            barrier.wait()
            results[name] = thoughts_ack(
                agent=agent, thought_ids=order, processed_by=name
            )
        finally:
            connection.close()

    threads = [
        threading.Thread(target=planner, args=("planner-a", ids)),
        threading.Thread(target=planner, args=("planner-b", list(reversed(ids)))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    a, b = results["planner-a"], results["planner-b"]
    assert a.newly_acked + b.newly_acked == N
    assert a.acked == b.acked == N
    assert Thought.objects.filter(agent=agent, processed=False).count() == 0
    by = dict(Thought.objects.values_list("processed_by").annotate(n=Count("pk")))
    assert by.get("planner-a", 0) + by.get("planner-b", 0) == N
    assert by.get("planner-a", 0) == a.newly_acked
