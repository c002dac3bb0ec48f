"""Two planners, two executors, at the same time, on PostgreSQL row locks.

Each thread uses its own connection and closes it at the end; the barrier
makes both start together.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from core.errors import Conflict
from stream.core.planning import OriginKind, TaskOrigin
from stream.models import Task, Thought
from stream.services.planning import planning_poll_once
from stream.services.planning_task_executor import task_claim
from stream.services.planning_task_store import task_add
from tests.concurrency import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def eligible_thoughts(agent: Any, keys: list[str]) -> list[int]:
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
            goal_key=key,
            source="agent",
            metadata={
                "extractedGoal": {
                    "action": key.split(":")[0],
                    "target": key.split(":")[1],
                }
            },
            created_at=now,
        )
        for i, key in enumerate(keys)
    )
    return list(Thought.objects.filter(agent=agent).values_list("pk", flat=True))


def test_two_planners_create_one_task_per_thought(agent: Any) -> None:
    ids = eligible_thoughts(agent, [f"collect:item_{i}" for i in range(150)])

    a, b = run_together(
        lambda: planning_poll_once(agent=agent, processed_by="a", limit=500),
        lambda: planning_poll_once(agent=agent, processed_by="b", limit=500),
    )

    assert not isinstance(a, Exception), a
    assert not isinstance(b, Exception), b
    assert a.converted + b.converted == 150
    assert a.errors == b.errors == 0
    assert sorted(Task.objects.values_list("thought_id", flat=True)) == sorted(ids)
    assert Thought.objects.filter(processed=False).count() == 0


def test_two_planners_with_one_goal_key_create_one_task(agent: Any) -> None:
    eligible_thoughts(agent, ["collect:oak_log"] * 40)

    a, b = run_together(
        lambda: planning_poll_once(agent=agent, processed_by="a"),
        lambda: planning_poll_once(agent=agent, processed_by="b"),
    )

    assert not isinstance(a, Exception), a
    assert not isinstance(b, Exception), b
    assert a.converted + b.converted == 1
    assert Task.objects.filter(goal_key="collect:oak_log").count() == 1
    assert Thought.objects.filter(processed=False).count() == 0


def test_two_executors_claiming_one_task_one_wins(agent: Any) -> None:
    for _round in range(10):
        task = task_add(
            agent=agent,
            title="t",
            action="collect",
            origin=TaskOrigin(OriginKind.API, "t"),
        )
        a, b = run_together(
            lambda: task_claim(agent=agent, executor="ex-a"),
            lambda: task_claim(agent=agent, executor="ex-b"),
        )
        winners = [r for r in (a, b) if isinstance(r, Task)]
        assert len(winners) == 1, (a, b)
        assert [r for r in (a, b) if not isinstance(r, Task)] == [None]
        task.refresh_from_db()
        assert (task.status, task.claimed_by) == ("active", winners[0].claimed_by)


def test_two_executors_claiming_by_id_one_wins_one_conflicts(agent: Any) -> None:
    task = task_add(
        agent=agent, title="t", action="collect", origin=TaskOrigin(OriginKind.API, "t")
    )
    a, b = run_together(
        lambda: task_claim(agent=agent, executor="ex-a", task_id=task.pk),
        lambda: task_claim(agent=agent, executor="ex-b", task_id=task.pk),
    )
    assert sorted(type(r).__name__ for r in (a, b)) == ["Conflict", "Task"]
    conflict = next(r for r in (a, b) if isinstance(r, Conflict))
    assert conflict.details["current"]["status"] == "active"


def test_two_executors_draining_a_queue_claim_each_task_once(agent: Any) -> None:
    created = {
        task_add(
            agent=agent, title=f"t{i}", action="collect",
            origin=TaskOrigin(OriginKind.API, "t"),
        ).pk
        for i in range(60)
    }  # fmt: skip

    def drain(name: str) -> list[int]:
        claimed = []
        while (task := task_claim(agent=agent, executor=name)) is not None:
            claimed.append(task.pk)
        return claimed

    a, b = run_together(lambda: drain("ex-a"), lambda: drain("ex-b"))

    assert not isinstance(a, Exception), a
    assert not isinstance(b, Exception), b
    assert set(a).isdisjoint(b)
    assert set(a) | set(b) == created
