"""stream.services.planning_task_executor on a real database: claim,
progress, complete and fail.

Runs on SQLite by default and on PostgreSQL with DATABASE_URL; the
concurrency cases that need row locks live in test_planning_concurrency.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from core.errors import Conflict, NotFound
from stream.models import Task, TaskEvent
from stream.services.planning_task_executor import (
    task_claim,
    task_complete,
    task_fail,
    task_progress,
)
from tests.builders import T0, agent_make, task_pending

pytestmark = pytest.mark.django_db


# --- executor transitions ---------------------------------------------------------


def test_claim_takes_the_oldest_pending_task_then_nothing(agent: Any) -> None:
    old = task_pending(agent, "collect:oak_log", T0)
    new = task_pending(agent, "mine:stone", T0 + timedelta(seconds=1))

    first = task_claim(agent=agent, executor="ex", now=T0 + timedelta(seconds=2))
    second = task_claim(agent=agent, executor="ex", now=T0 + timedelta(seconds=3))
    third = task_claim(agent=agent, executor="ex", now=T0 + timedelta(seconds=4))

    assert first is not None and second is not None
    assert (first.pk, second.pk, third) == (old.pk, new.pk, None)
    old.refresh_from_db()
    assert (old.status, old.claimed_by) == ("active", "ex")
    assert old.claimed_at == T0 + timedelta(seconds=2)


def test_claiming_an_active_task_is_a_conflict_with_the_current_state(
    agent: Any,
) -> None:
    task = task_pending(agent, "collect:oak_log", T0)
    task_claim(agent=agent, executor="ex", task_id=task.pk, now=T0)
    with pytest.raises(Conflict) as caught:
        task_claim(agent=agent, executor="other", task_id=task.pk, now=T0)
    assert caught.value.details["reason"] == "illegal_transition:active->claim"
    assert caught.value.details["current"]["status"] == "active"
    assert caught.value.details["current"]["claimedBy"] == "ex"


def test_progress_complete_and_the_audit_trail(agent: Any) -> None:
    task = task_pending(agent, "collect:oak_log", T0)
    task_claim(agent=agent, executor="ex", task_id=task.pk, now=T0)
    task_progress(agent=agent, task_id=task.pk, executor="ex", progress=0.5, now=T0)
    task_progress(
        agent=agent,
        task_id=task.pk,
        executor="ex",
        progress=0.5,
        blocked_reason="no_path",
        now=T0 + timedelta(seconds=1),
    )
    blocked = Task.objects.get(pk=task.pk)
    assert (blocked.blocked_reason, blocked.blocked_at) == (
        "no_path",
        T0 + timedelta(seconds=1),
    )
    done = task_complete(
        agent=agent, task_id=task.pk, executor="ex", now=T0 + timedelta(seconds=2)
    )
    assert (done.status, done.progress, done.blocked_reason, done.blocked_at) == (
        "completed",
        1.0,
        "",
        None,
    )
    assert done.finished_at == T0 + timedelta(seconds=2)
    assert list(
        TaskEvent.objects.filter(task=task).values_list("kind", "status", "progress")
    ) == [
        ("created", "pending", 0.0),
        ("claimed", "active", 0.0),
        ("progress", "active", 0.5),
        ("blocked", "active", 0.5),
        ("completed", "completed", 1.0),
    ]


@pytest.mark.parametrize(
    ("setup", "call", "reason"),
    [
        ("pending", "progress", "illegal_transition:pending->progress"),
        ("pending", "complete", "illegal_transition:pending->complete"),
        ("completed", "fail", "illegal_transition:completed->fail"),
        ("completed", "claim", "illegal_transition:completed->claim"),
        ("active", "regress", "progress_regressed"),
        ("active", "other_executor", "claimed_by_other"),
    ],
)
def test_illegal_transitions_are_conflicts_and_change_nothing(
    agent: Any, setup: str, call: str, reason: str
) -> None:
    task = task_pending(agent, "collect:oak_log", T0)
    if setup in ("active", "completed"):
        task_claim(agent=agent, executor="ex", task_id=task.pk, now=T0)
        task_progress(agent=agent, task_id=task.pk, executor="ex", progress=0.5, now=T0)
    if setup == "completed":
        task_complete(agent=agent, task_id=task.pk, executor="ex", now=T0)
    before = Task.objects.filter(pk=task.pk).values().get()
    events = TaskEvent.objects.count()
    calls = {
        "progress": lambda: task_progress(
            agent=agent, task_id=task.pk, executor="ex", progress=0.6
        ),
        "complete": lambda: task_complete(agent=agent, task_id=task.pk, executor="ex"),
        "fail": lambda: task_fail(
            agent=agent, task_id=task.pk, executor="ex", reason="x"
        ),
        "claim": lambda: task_claim(agent=agent, executor="ex", task_id=task.pk),
        "regress": lambda: task_progress(
            agent=agent, task_id=task.pk, executor="ex", progress=0.1
        ),
        "other_executor": lambda: task_complete(
            agent=agent, task_id=task.pk, executor="intruder"
        ),
    }
    with pytest.raises(Conflict) as caught:
        calls[call]()
    assert caught.value.details["reason"] == reason
    assert Task.objects.filter(pk=task.pk).values().get() == before
    assert TaskEvent.objects.count() == events


def test_fail_from_pending_records_the_reason(agent: Any) -> None:
    task = task_pending(agent, "collect:oak_log", T0)
    failed = task_fail(agent=agent, task_id=task.pk, executor="ex", reason="no route")
    assert (failed.status, failed.failure_reason) == ("failed", "no route")


def test_another_agents_task_is_not_found(agent: Any, owner: Any) -> None:
    other = agent_make(name="beta", owner=owner).agent
    task = task_pending(other, "collect:oak_log", T0)
    with pytest.raises(NotFound):
        task_claim(agent=agent, executor="ex", task_id=task.pk)
    assert Task.objects.get(pk=task.pk).status == "pending"
