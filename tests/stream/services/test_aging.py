"""Data that ages: old thoughts, stream events and finished tasks' events go
in batches by key range; nothing the queue policy still keeps is deleted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import override_settings

from evalsite.dispatch import task_get
from stream.models import StreamEvent, Task, TaskEvent, Thought
from stream.services.aging import SweepResult, retention_sweep
from tests.builders import agent_make, user_make

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture
def agent() -> Any:
    return agent_make(owner=user_make("alice"), name="alpha", is_active=False).agent


def thought(agent: Any, age: timedelta, *, kind: str = "processed") -> int:
    """A stored thought of that age: ``processed``, ``actionable`` (waiting
    for planning) or ``other`` (unprocessed, not actionable)."""
    made = Thought.objects.create(
        agent=agent,
        type="reflection",
        content=f"{kind} {age}",
        content_hash="0" * 16,
        processed=kind == "processed",
        processed_at=NOW - age if kind == "processed" else None,
        convert_eligible=kind == "actionable",
        grounding_passed=True if kind == "actionable" else None,
        goal_key="collect:oak_log" if kind == "actionable" else None,
        eligibility_reason="test",
        source="api",
        created_at=NOW - age,
    )
    return made.pk


def left() -> list[str]:
    return list(Thought.objects.order_by("pk").values_list("content", flat=True))


@override_settings(
    THOUGHT_RETENTION_DAYS=10,
    STREAM_EVENT_RETENTION_DAYS=0,
    TASK_EVENT_RETENTION_DAYS=0,
)
def test_thoughts_older_than_the_retention_go_in_key_ranges(
    agent: Any, log_lines: Any
) -> None:
    for age in (30, 12, 9, 11, 1):
        thought(agent, age * DAY)
    results = retention_sweep(now=NOW, batch=2)
    assert results == [SweepResult("thoughts", deleted=3, batches=2, more=False)]
    assert left() == ["processed 9 days, 0:00:00", "processed 1 day, 0:00:00"]
    assert log_lines("[Retention]") == [
        "[Retention] sweep kind=thoughts deleted=3 batches=2 more=false"
    ]


@override_settings(
    THOUGHT_RETENTION_DAYS=1,
    STREAM_ACTIONABLE_MAX_AGE_S=3 * 86400,
    STREAM_PROCESSED_MAX_AGE_S=86400,
    STREAM_OTHER_MAX_AGE_S=600,
    STREAM_EVENT_RETENTION_DAYS=0,
    TASK_EVENT_RETENTION_DAYS=0,
)
def test_an_actionable_thought_waits_out_its_own_max_age(agent: Any) -> None:
    thought(agent, 2 * DAY, kind="actionable")
    thought(agent, 4 * DAY, kind="actionable")
    thought(agent, 2 * DAY, kind="other")
    thought(agent, 2 * DAY, kind="processed")
    retention_sweep(now=NOW)
    assert left() == ["actionable 2 days, 0:00:00"]


@override_settings(
    THOUGHT_RETENTION_DAYS=10,
    STREAM_EVENT_RETENTION_DAYS=0,
    TASK_EVENT_RETENTION_DAYS=0,
)
def test_a_task_outlives_its_deleted_thought(agent: Any) -> None:
    gone = thought(agent, 20 * DAY)
    task = Task.objects.create(
        agent=agent,
        thought_id=gone,
        title="collect oak",
        action="collect",
        created_at=NOW,
        updated_at=NOW,
    )
    retention_sweep(now=NOW)
    task.refresh_from_db()
    assert task.thought_id is None
    assert left() == []


@override_settings(
    THOUGHT_RETENTION_DAYS=10,
    STREAM_EVENT_RETENTION_DAYS=0,
    TASK_EVENT_RETENTION_DAYS=0,
)
def test_a_sweep_stops_at_its_batch_cap_and_the_next_goes_on(agent: Any) -> None:
    for _ in range(5):
        thought(agent, 20 * DAY)
    first = retention_sweep(now=NOW, batch=2, max_batches=2)
    assert first == [SweepResult("thoughts", deleted=4, batches=2, more=True)]
    second = retention_sweep(now=NOW, batch=2, max_batches=2)
    assert second == [SweepResult("thoughts", deleted=1, batches=1, more=False)]


@override_settings(
    THOUGHT_RETENTION_DAYS=0,
    STREAM_EVENT_RETENTION_DAYS=7,
    TASK_EVENT_RETENTION_DAYS=30,
)
def test_old_stream_events_and_finished_tasks_events_go(agent: Any) -> None:
    for age in (8, 6):
        StreamEvent.objects.create(
            agent=agent, type="refresh", created_at=NOW - age * DAY
        )
    tasks = {
        status: Task.objects.create(
            agent=agent,
            title=status,
            action="collect",
            status=status,
            created_at=NOW,
            updated_at=NOW,
        )
        for status in ("completed", "failed", "active")
    }
    for task in tasks.values():
        for age in (40, 10):
            TaskEvent.objects.create(
                task=task,
                kind="progress",
                status=task.status,
                progress=0.0,
                created_at=NOW - age * DAY,
            )
    results = retention_sweep(now=NOW)
    assert results == [
        SweepResult("stream_events", deleted=1, batches=1, more=False),
        SweepResult("task_events", deleted=2, batches=1, more=False),
    ]
    assert list(
        TaskEvent.objects.order_by("pk").values_list("task__status", "created_at")
    ) == [
        ("completed", NOW - 10 * DAY),
        ("failed", NOW - 10 * DAY),
        ("active", NOW - 40 * DAY),
        ("active", NOW - 10 * DAY),
    ]
    assert StreamEvent.objects.get().created_at == NOW - 6 * DAY


@override_settings(
    THOUGHT_RETENTION_DAYS=0, STREAM_EVENT_RETENTION_DAYS=0, TASK_EVENT_RETENTION_DAYS=0
)
def test_zero_days_keeps_everything(agent: Any) -> None:
    thought(agent, 4000 * DAY)
    assert retention_sweep(now=NOW) == []
    assert len(left()) == 1


def test_the_defaults_keep_events_a_week_and_thoughts_a_month(settings: Any) -> None:
    assert (
        settings.THOUGHT_RETENTION_DAYS,
        settings.STREAM_EVENT_RETENTION_DAYS,
        settings.TASK_EVENT_RETENTION_DAYS,
        settings.RETENTION_BATCH,
    ) == (30, 7, 90, 5000)


@override_settings(THOUGHT_RETENTION_DAYS=10)
def test_beat_runs_the_sweep_by_name(agent: Any, settings: Any) -> None:
    thought(agent, 4000 * DAY)
    assert settings.CELERY_BEAT_SCHEDULE["stream-retention-sweep"]["task"] == (
        "stream.retention_sweep"
    )
    assert task_get("stream.retention_sweep").apply().get() == 1
    assert left() == []
