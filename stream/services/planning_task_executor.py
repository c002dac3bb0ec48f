"""Executor transitions: claim, progress, complete and fail a planning task.

The transition table is ``stream.core.planning``'s; an illegal transition is
a ``Conflict`` carrying the task's current wire shape (409 in the API).
Every call records the executor's liveness. Claims: on PostgreSQL rows locked
by a concurrent claimant are skipped (``SKIP LOCKED``); everywhere the
conditional UPDATE lets exactly one claimant win each task (on SQLite every
write transaction takes the database lock at BEGIN).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from core.errors import Conflict
from stream.core.planning import (
    TaskAction,
    TaskStatus,
    check_progress,
    decide_transition,
)
from stream.core.planning_metadata import apply_metadata_patch
from stream.models import Agent, PlanningState, Task
from stream.services.planning_task_store import (
    planning_state_get,
    task_event_add,
    task_locked,
    task_wire_for,
)

logger = logging.getLogger(__name__)


def executor_seen(*, agent: Agent, executor: str, now: datetime) -> None:
    """Record that the agent's executor called the task API (liveness)."""
    planning_state_get(agent=agent)
    PlanningState.objects.filter(agent=agent).update(
        executor_seen_at=now, executor_name=executor[:200]
    )


def _conflict(task: Task, reason: str, message: str) -> Conflict:
    return Conflict(
        message,
        code="conflict",
        details={"reason": reason, "current": task_wire_for(task)},
    )


def _check(task: Task, action: TaskAction, executor: str) -> TaskStatus:
    decision = decide_transition(TaskStatus(task.status), action)
    if not decision.allowed or decision.to_status is None:
        raise _conflict(
            task,
            decision.reason,
            f"cannot {action.value} task {task.pk}: it is {task.status}",
        )
    if action != TaskAction.CLAIM and task.claimed_by and executor != task.claimed_by:
        raise _conflict(
            task,
            "claimed_by_other",
            f"task {task.pk} is claimed by {task.claimed_by}, not {executor}",
        )
    return decision.to_status


def _claim_row(task: Task, executor: str, now: datetime) -> Task:
    task.status = TaskStatus.ACTIVE
    task.claimed_by = executor[:200]
    task.claimed_at = now
    task.updated_at = now
    task.save(update_fields=["status", "claimed_by", "claimed_at", "updated_at"])
    task_event_add(task, "claimed", now=now, actor=executor)
    return task


def task_claim(
    *,
    agent: Agent,
    executor: str,
    task_id: int | None = None,
    now: datetime | None = None,
) -> Task | None:
    """pending -> active for one claimant; ``None`` when nothing is pending.

    With ``task_id`` that task is claimed or ``Conflict`` (409, with the
    current state) says why not. Without, the oldest pending task: on
    PostgreSQL rows locked by a concurrent claimant are skipped; everywhere
    the conditional UPDATE (``status='pending'`` in the WHERE) lets exactly
    one claimant win each task.
    """
    now = now or timezone.now()
    executor_seen(agent=agent, executor=executor, now=now)
    if task_id is not None:
        with transaction.atomic():
            task = task_locked(agent=agent, task_id=task_id)
            _check(task, TaskAction.CLAIM, executor)
            task = _claim_row(task, executor, now)
    else:
        task = _claim_next(agent, executor, now)
        if task is None:
            return None
    logger.info(
        "[Planning] [AUTONOMOUS EXECUTOR] task_claimed id=%s executor=%s goalKey=%s",
        task.pk,
        executor,
        task.goal_key,
        extra={"agent": agent.name, "task_id": task.pk},
    )
    return task


def _claim_next(agent: Agent, executor: str, now: datetime) -> Task | None:
    for _attempt in range(5):
        with transaction.atomic():
            pending = Task.objects.filter(
                agent=agent, status=TaskStatus.PENDING
            ).order_by("created_at", "pk")
            if connection.features.has_select_for_update_skip_locked:
                pending = pending.select_for_update(skip_locked=True)
            candidate = pending.first()
            if candidate is None:
                return None
            won = Task.objects.filter(
                pk=candidate.pk, status=TaskStatus.PENDING
            ).update(
                status=TaskStatus.ACTIVE,
                claimed_by=executor[:200],
                claimed_at=now,
                updated_at=now,
            )
            if won:
                task = Task.objects.select_related("agent").get(pk=candidate.pk)
                task_event_add(task, "claimed", now=now, actor=executor)
                return task
    return None


_UNSET: Any = object()


def task_progress(
    *,
    agent: Agent,
    task_id: int,
    executor: str,
    progress: float,
    blocked_reason: str | None = _UNSET,
    metadata: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> Task:
    """Report progress (a fraction, never going backwards) on an active task.

    ``blocked_reason`` sets (stamping blockedAt) or, with ``''``/``None``,
    clears the block; left out it is unchanged. A metadata patch goes through
    ``task_update_metadata``'s rules. Illegal -> ``Conflict``.
    """
    now = now or timezone.now()
    executor_seen(agent=agent, executor=executor, now=now)
    with transaction.atomic():
        task = task_locked(agent=agent, task_id=task_id)
        _check(task, TaskAction.PROGRESS, executor)
        problem = check_progress(task.progress, progress)
        if problem is not None:
            raise _conflict(
                task,
                problem,
                f"progress {progress} is not allowed after {task.progress}",
            )
        task.progress = progress
        if blocked_reason is not _UNSET:
            reason = (blocked_reason or "")[:200]
            if reason and reason != task.blocked_reason:
                task.blocked_at = now
            elif not reason:
                task.blocked_at = None
            task.blocked_reason = reason
        if metadata:
            patched = apply_metadata_patch(
                task.metadata, metadata, now_iso=now.isoformat()
            )
            task.metadata = patched.metadata
        task.updated_at = now
        task.save()
        task_event_add(
            task,
            "blocked" if task.blocked_reason else "progress",
            now=now,
            actor=executor,
            blockedReason=task.blocked_reason or None,
        )
    return task


def _finish(
    *,
    agent: Agent,
    task_id: int,
    executor: str,
    action: TaskAction,
    now: datetime | None,
    reason: str = "",
    result: Mapping[str, Any] | None = None,
) -> Task:
    now = now or timezone.now()
    executor_seen(agent=agent, executor=executor, now=now)
    with transaction.atomic():
        task = task_locked(agent=agent, task_id=task_id)
        to_status = _check(task, action, executor)
        task.status = to_status
        task.finished_at = now
        task.updated_at = now
        if to_status == TaskStatus.COMPLETED:
            task.progress = 1.0
            task.blocked_reason, task.blocked_at = "", None
            if result:
                task.metadata = {**task.metadata, "result": dict(result)}
        else:
            task.failure_reason = reason[:500]
        task.save()
        task_event_add(
            task, to_status.value, now=now, actor=executor, reason=reason or None
        )
    logger.info(
        "[Planning] [AUTONOMOUS EXECUTOR] task_%s id=%s executor=%s goalKey=%s",
        to_status.value,
        task.pk,
        executor,
        task.goal_key,
        extra={"agent": agent.name, "task_id": task.pk},
    )
    return task


def task_complete(
    *,
    agent: Agent,
    task_id: int,
    executor: str,
    result: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> Task:
    """active -> completed (progress 1); illegal -> ``Conflict``."""
    return _finish(
        agent=agent,
        task_id=task_id,
        executor=executor,
        action=TaskAction.COMPLETE,
        now=now,
        result=result,
    )


def task_fail(
    *,
    agent: Agent,
    task_id: int,
    executor: str,
    reason: str,
    now: datetime | None = None,
) -> Task:
    """pending|active -> failed with a reason; illegal -> ``Conflict``."""
    return _finish(
        agent=agent,
        task_id=task_id,
        executor=executor,
        action=TaskAction.FAIL,
        now=now,
        reason=reason,
    )
