"""stream.services.planning on a real database: poll + ack, goalKey
idempotency, the idle signal.

Runs on SQLite by default and on PostgreSQL with DATABASE_URL; the
concurrency cases that need row locks live in test_planning_concurrency.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from stream.models import Task, Thought
from stream.services import planning
from stream.services.planning import planning_idle_check, planning_poll_once
from stream.services.planning_task_executor import (
    task_claim,
    task_fail,
    task_progress,
)
from stream.services.planning_task_store import (
    reset_dropped_key_warnings,
)
from tests.builders import T0, task_pending, thought_actionable

pytestmark = pytest.mark.django_db

ACK_PREFIXES = ("[Thought-to-task] ack batch", "[CognitiveStream] Acked")
IDLE_LINE = (
    "[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active=0, eligible=0)"
)


@pytest.fixture(autouse=True)
def _fresh_warnings() -> None:
    reset_dropped_key_warnings()


# --- poll and ack (SC-B2, PA-D3) -------------------------------------------------


def test_sc_b2_poll_acks_every_fetched_thought_once_with_the_batch_line_first(
    agent: Any, log_lines: Any
) -> None:
    first = thought_actionable(agent, "collect:oak_log", created_at=T0)
    dup = thought_actionable(
        agent, "collect:oak_log", created_at=T0 + timedelta(seconds=1)
    )
    broken = thought_actionable(
        agent,
        "mine:stone",
        created_at=T0 + timedelta(seconds=2),
        metadata={"extractedGoal": "not a goal object"},
    )

    result = planning_poll_once(agent=agent, now=T0 + timedelta(seconds=5))

    assert (result.fetched, result.converted, result.skipped, result.errors) == (
        3,
        1,
        1,
        1,
    )
    assert result.acked == 3
    task = Task.objects.get()
    assert result.task_ids == (task.pk,)
    assert task.thought_id == first.pk
    assert [(o.thought_id, o.reason) for o in result.outcomes] == [
        (first.pk, "converted"),
        (dup.pk, "duplicate_goal_key"),
        (broken.pk, "malformed_extracted_goal"),
    ]
    assert set(Thought.objects.values_list("processed", flat=True)) == {True}
    assert Thought.objects.filter(processed_by="planner").count() == 3
    lines = [line for line in log_lines() if line.startswith(ACK_PREFIXES)]
    assert lines == [
        "[Thought-to-task] ack batch size=3 fetched=3 converted=1 skipped=1 errors=1",
        "[CognitiveStream] Acked 3/3 thoughts",
    ]


def test_sc_b2_exception_in_one_conversion_is_counted_as_error_and_still_acked(
    agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    thought = thought_actionable(agent)

    def explode(*args: Any, **kwargs: Any) -> Task:
        raise RuntimeError("store down")

    monkeypatch.setattr(planning, "task_add", explode)
    result = planning_poll_once(agent=agent, now=T0)

    assert (result.fetched, result.converted, result.errors, result.acked) == (
        1,
        0,
        1,
        1,
    )
    assert result.outcomes[0].reason == "exception:RuntimeError"
    thought.refresh_from_db()
    assert thought.processed is True
    assert Task.objects.count() == 0


def test_pa_d3_thoughts_without_eligibility_never_become_tasks(
    agent: Any, log_lines: Any
) -> None:
    thought_actionable(agent, None, convert_eligible=False, metadata={})
    thought_actionable(agent, None, convert_eligible=None, metadata={})

    result = planning_poll_once(agent=agent, now=T0)

    assert (result.fetched, result.converted, result.acked) == (0, 0, 0)
    assert Task.objects.count() == 0
    assert not [line for line in log_lines() if line.startswith(ACK_PREFIXES)]
    assert Thought.objects.filter(processed=True).count() == 0


def test_sc_b2_a_second_poll_finds_nothing_left(agent: Any) -> None:
    thought_actionable(agent)
    planning_poll_once(agent=agent, now=T0)
    again = planning_poll_once(agent=agent, now=T0 + timedelta(seconds=5))
    assert (again.fetched, again.converted, again.acked) == (0, 0, 0)
    assert Task.objects.count() == 1


def test_converted_task_carries_origin_provenance_and_rebuilt_metadata(
    agent: Any,
) -> None:
    thought = thought_actionable(agent)
    planning_poll_once(agent=agent, now=T0)
    task = Task.objects.get()
    assert (task.title, task.action, task.target, task.amount) == (
        "collect oak_log x4",
        "collect",
        "oak_log",
        4,
    )
    assert (task.origin_kind, task.origin_name) == ("cognition", "thought-to-task")
    assert task.goal_key == "collect:oak_log"
    assert task.metadata == {
        "createdAt": T0.isoformat(),
        "updatedAt": T0.isoformat(),
        "retryCount": 0,
        "maxRetries": 3,
        "childTaskIds": [],
        "tags": ["thought-to-task", "gathering"],
        "category": "gathering",
        "solver": "acquisition",
        "taskProvenance": {
            "thoughtId": thought.pk,
            "convertEligible": True,
            "eligibilityReason": "eligible",
            "source": "agent",
            "extractedGoalSource": "llm",
        },
    }
    assert list(task.events.values_list("kind", flat=True)) == ["created"]


# --- goalKey idempotency (the agency contract §3.2) ---------------------------------------------


@pytest.mark.parametrize(
    ("age", "progress", "converted"),
    [
        (timedelta(minutes=4, seconds=59), 0.0, False),
        (timedelta(minutes=5), 0.0, True),
        (timedelta(minutes=30), 0.25, False),
    ],
)
def test_goal_key_suppression_until_stuck(
    agent: Any, age: timedelta, progress: float, converted: bool
) -> None:
    existing = task_pending(agent, "collect:oak_log", T0)
    if progress:
        task_claim(agent=agent, executor="ex", task_id=existing.pk, now=T0)
        task_progress(
            agent=agent, task_id=existing.pk, executor="ex", progress=progress, now=T0
        )
    thought_actionable(agent, created_at=T0 + age)

    result = planning_poll_once(agent=agent, now=T0 + age)

    assert result.converted == int(converted)
    expected = "converted" if converted else "duplicate_goal_key"
    assert result.outcomes[0].reason == expected
    assert Task.objects.filter(goal_key="collect:oak_log").count() == 1 + converted


def test_goal_key_of_finished_task_does_not_suppress(agent: Any) -> None:
    done = task_pending(agent, "collect:oak_log", T0)
    task_fail(agent=agent, task_id=done.pk, executor="ex", reason="no trees", now=T0)
    thought_actionable(agent, created_at=T0)
    assert planning_poll_once(agent=agent, now=T0).converted == 1


# --- idle signal (KA-A3) ------------------------------------------------------------


def test_ka_a3_idle_line_when_no_task_is_active_ortask_pending(
    agent: Any, log_lines: Any
) -> None:
    planning_poll_once(agent=agent, now=T0)
    assert log_lines("[Planning]") == [IDLE_LINE]


def test_ka_a3_no_idle_line_while_a_task_istask_pending(
    agent: Any, log_lines: Any
) -> None:
    task_pending(agent, "collect:oak_log", T0)
    assert planning_idle_check(agent=agent) is False
    assert IDLE_LINE not in log_lines()
