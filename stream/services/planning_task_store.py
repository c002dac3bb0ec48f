"""Task store: planning state, the task wire shape, adding and patching tasks.

The rules are ``stream.core.planning``'s; this module reads and writes the
models and logs the contract line (exact):

- ``[projectIncomingMetadata] Dropped metadata key "<key>" — not in
  PROPAGATED_META_KEYS. If this key is needed, add it to the allowlist.``
  (the agency contract §1.1, outside production, once per key per process).

A task's origin is stamped once and never changes; metadata is rebuilt from
the allowlist. The agent's planning state row is the lock planners and drive
ticks take around a goalKey check (PostgreSQL; on SQLite every write
transaction takes the database lock at BEGIN, ``transaction_mode=IMMEDIATE``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import NotFound
from core.times import epoch_ms, epoch_ms_or_none
from stream.core.planning import (
    PLAN_ROUTES,
    OpenTask,
    OriginKind,
    TaskOrigin,
    TaskStatus,
    category_for,
    origin_to_wire,
)
from stream.core.planning_metadata import (
    apply_metadata_patch,
    build_task_metadata,
    keys_to_warn,
    project_incoming_metadata,
)
from stream.core.planning_stalls import StallClass, StallInputs, classify_stall
from stream.models import Agent, PlanningState, Task, TaskEvent, Thought

logger = logging.getLogger(__name__)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


# --- planning state ------------------------------------------------------------


def planning_state_get(*, agent: Agent) -> PlanningState:
    """The agent's planning state row, created on first use (race-safe)."""
    try:
        state, _ = PlanningState.objects.get_or_create(agent=agent)
    except IntegrityError:
        state = PlanningState.objects.get(agent=agent)
    return state


def planning_state_lock(*, agent: Agent) -> PlanningState:
    """Lock the agent's planning state for the current transaction.

    The row serializes the goalKey check-then-create of concurrent planners
    and drive ticks of one agent (PostgreSQL; SQLite is already serial).
    """
    planning_state_get(agent=agent)
    return PlanningState.objects.select_for_update().get(agent=agent)


# --- wire ----------------------------------------------------------------------


def task_origin(task: Task) -> TaskOrigin | None:
    if not task.origin_kind:
        return None
    return TaskOrigin(
        OriginKind(task.origin_kind), task.origin_name, task.origin_parent_id
    )


def task_source_convert_eligible(task: Task) -> bool | None:
    """The originating thought's convertEligible; the provenance copy once
    retention has pruned the thought; ``None`` for tasks not from a thought."""
    if task.thought_id is not None and task.thought is not None:
        return task.thought.convert_eligible is True
    provenance = task.metadata.get("taskProvenance")
    if isinstance(provenance, Mapping) and "convertEligible" in provenance:
        return provenance.get("convertEligible") is True
    return None


def task_stall_class(
    task: Task, *, now: datetime, executor_seen_at: datetime | None
) -> StallClass | None:
    """The §7.3 stall class of a stored task (``None`` when not stalled)."""
    return classify_stall(
        StallInputs(
            status=TaskStatus(task.status),
            action=task.action,
            goal_key=task.goal_key,
            progress=task.progress,
            created_ms=epoch_ms(task.created_at),
            blocked_reason=task.blocked_reason,
            blocked_at_ms=epoch_ms_or_none(task.blocked_at),
            source_convert_eligible=task_source_convert_eligible(task),
            executor_seen_ms=epoch_ms_or_none(executor_seen_at),
        ),
        now_ms=epoch_ms(now),
        executor_stale_ms=settings.PLANNING_EXECUTOR_STALE_S * 1000,
    )


def task_to_wire(
    task: Task, *, now: datetime, executor_seen_at: datetime | None
) -> dict[str, Any]:
    """The camelCase shape of a task in the API (goalKey back in metadata)."""
    metadata = dict(task.metadata)
    if task.goal_key:
        metadata["goalKey"] = task.goal_key
    stall = task_stall_class(task, now=now, executor_seen_at=executor_seen_at)
    return {
        "id": task.pk,
        "agent": task.agent.name,
        "title": task.title,
        "action": task.action,
        "target": task.target,
        "amount": task.amount,
        "status": task.status,
        "progress": task.progress,
        "blockedReason": task.blocked_reason or None,
        "blockedAt": _iso(task.blocked_at),
        "goalKey": task.goal_key,
        "origin": origin_to_wire(task_origin(task)),
        "thoughtId": task.thought_id,
        "metadata": metadata,
        "claimedBy": task.claimed_by or None,
        "claimedAt": _iso(task.claimed_at),
        "finishedAt": _iso(task.finished_at),
        "failureReason": task.failure_reason or None,
        "stallClass": None if stall is None else stall.value,
        "createdAt": _iso(task.created_at),
        "updatedAt": _iso(task.updated_at),
    }


def task_wire_for(task: Task, *, now: datetime | None = None) -> dict[str, Any]:
    """``task_to_wire`` with the agent's executor liveness looked up."""
    state = planning_state_get(agent=task.agent)
    return task_to_wire(
        task, now=now or timezone.now(), executor_seen_at=state.executor_seen_at
    )


# --- task store ----------------------------------------------------------------

_warned_dropped_keys: set[str] = set()
_warned_lock = threading.Lock()


def reset_dropped_key_warnings() -> None:
    """Forget which dropped keys were warned about (tests; a new session)."""
    with _warned_lock:
        _warned_dropped_keys.clear()


def _warn_dropped(keys: Sequence[str]) -> None:
    if not keys or not settings.DEBUG:
        return
    with _warned_lock:
        fresh = keys_to_warn(keys, frozenset(_warned_dropped_keys))
        _warned_dropped_keys.update(fresh)
    for key in fresh:
        logger.warning(
            '[projectIncomingMetadata] Dropped metadata key "%s" — not in '
            "PROPAGATED_META_KEYS. If this key is needed, add it to the allowlist.",
            key,
        )


def task_event_add(
    task: Task, kind: str, *, now: datetime, actor: str = "", **detail: Any
) -> None:
    """Append one entry to the task's history (its status and progress now)."""
    TaskEvent.objects.create(
        task=task,
        kind=kind,
        status=task.status,
        progress=task.progress,
        actor=actor[:200],
        detail=detail,
        created_at=now,
    )


def task_add(
    *,
    agent: Agent,
    title: str,
    action: str,
    target: str = "",
    amount: int | None = None,
    metadata: Mapping[str, Any] | None = None,
    origin: TaskOrigin | None = None,
    thought: Thought | None = None,
    tags: Sequence[str] = (),
    category: str | None = None,
    allow_unfinalized: bool = False,
    now: datetime | None = None,
) -> Task:
    """Store a new pending task (addTask + finalizeNewTask).

    Metadata is rebuilt from scratch: only ``PROPAGATED_META_KEYS`` survive of
    ``metadata`` (an empty goalKey is skipped), the rebuilt keys are set here,
    other keys are dropped with the once-per-key warning (DEBUG only).
    ``origin`` is stamped in the same insert and never changes afterwards.
    With ``PLANNING_STRICT_FINALIZE`` a task stored without origin (and
    without ``allow_unfinalized``) logs a warning. Raises ``IntegrityError``
    when ``thought`` already has a task.
    """
    now = now or timezone.now()
    projection = project_incoming_metadata(metadata)
    _warn_dropped(projection.dropped)
    category = category or category_for(action)
    stored = build_task_metadata(
        projection,
        now_iso=now.isoformat(),
        tags=tags,
        category=category,
        solver=PLAN_ROUTES.get(action),
    )
    with transaction.atomic():
        task = Task.objects.create(
            agent=agent,
            thought=thought,
            title=title[:200],
            action=action[:32],
            target=target[:200],
            amount=amount,
            goal_key=projection.goal_key,
            origin_kind=origin.kind.value if origin else "",
            origin_name=origin.name[:100] if origin else "",
            origin_parent_id=origin.parent_task_id if origin else None,
            metadata=stored,
            created_at=now,
            updated_at=now,
        )
        task_event_add(task, "created", now=now, actor=origin.name if origin else "")
    if origin is None and not allow_unfinalized and settings.PLANNING_STRICT_FINALIZE:
        logger.warning(
            "[TaskStore] setTask: task %s stored without origin "
            "(PLANNING_STRICT_FINALIZE=1); finalize it or pass allow_unfinalized",
            task.pk,
            extra={"agent": agent.name, "task_id": task.pk},
        )
    logger.info(
        "[TaskStore] task_added id=%s goalKey=%s origin=%s",
        task.pk,
        task.goal_key,
        task.origin_name or "none",
        extra={"agent": agent.name, "task_id": task.pk},
    )
    return task


def task_finalize(*, task: Task, origin: TaskOrigin) -> bool:
    """Stamp ``origin`` on a task stored without one; never overwrites.

    Returns whether this call stamped it (a conditional UPDATE, so two
    finalizers cannot both win).
    """
    stamped = Task.objects.filter(pk=task.pk, origin_kind="").update(
        origin_kind=origin.kind.value,
        origin_name=origin.name[:100],
        origin_parent_id=origin.parent_task_id,
    )
    task.refresh_from_db()
    return bool(stamped)


def task_update_metadata(
    *,
    agent: Agent,
    task_id: int,
    patch: Mapping[str, Any],
    now: datetime | None = None,
) -> Task:
    """Merge ``patch`` into a task's metadata (updateTaskMetadata).

    ``origin`` (and goalKey, createdAt, updatedAt) are removed from the patch,
    so origin is immutable through every path.
    """
    now = now or timezone.now()
    with transaction.atomic():
        task = task_locked(agent=agent, task_id=task_id)
        result = apply_metadata_patch(task.metadata, patch, now_iso=now.isoformat())
        task.metadata = result.metadata
        task.updated_at = now
        task.save(update_fields=["metadata", "updated_at"])
        task_event_add(
            task, "metadata", now=now, keys=sorted(patch), ignored=result.ignored
        )
    if result.ignored:
        logger.info(
            "[TaskStore] metadata_patch_ignored id=%s keys=%s",
            task.pk,
            ",".join(result.ignored),
            extra={"agent": agent.name, "task_id": task.pk},
        )
    return task


# --- reads and locks -----------------------------------------------------------


def open_tasks(
    *, agent: Agent, goal_key: str | None = None, eval_scenario: str | None = None
) -> list[OpenTask]:
    """The agent's pending and active tasks as the idempotency rule reads them.

    With ``eval_scenario``, only the tasks converted from that eval
    scenario's thoughts: each scenario of a run has its own planning state.
    """
    rows = Task.objects.filter(
        agent=agent, status__in=[TaskStatus.PENDING, TaskStatus.ACTIVE]
    )
    if goal_key is not None:
        rows = rows.filter(goal_key=goal_key)
    if eval_scenario:
        rows = rows.filter(thought__metadata__evalScenario=eval_scenario)
    return [
        OpenTask(pk, key, TaskStatus(status), epoch_ms(created), progress)
        for pk, key, status, created, progress in rows.values_list(
            "pk", "goal_key", "status", "created_at", "progress"
        )
    ]


def task_locked(*, agent: Agent, task_id: int) -> Task:
    """The agent's task, row-locked for the current transaction; ``NotFound``
    when the agent has no such task."""
    task = (
        Task.objects.select_for_update(of=("self",))
        .select_related("agent", "thought")
        .filter(pk=task_id, agent=agent)
        .first()
    )
    if task is None:
        raise NotFound(f"no task {task_id} for agent {agent.name}")
    return task
