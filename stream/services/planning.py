"""Planning use cases: thought-to-task poll, task store, executor, drive tick.

The rules are ``stream.core.planning``'s; this module reads and writes the
models, logs the contract lines and takes the locks. Contract lines (exact):

- ``[Thought-to-task] ack batch size=<N> fetched=<N> converted=<C>
  skipped=<S> errors=<E>``, logged before the stream's ``[CognitiveStream]
  Acked <N>/<N> thoughts`` (SC-B2);
- ``[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active=0,
  eligible=0)`` (KA-A3);
- ``[projectIncomingMetadata] Dropped metadata key "<key>" — not in
  PROPAGATED_META_KEYS. If this key is needed, add it to the allowlist.``
  (seed 004 §1.1, outside production, once per key per process).

Concurrency: one task per thought is a unique constraint; on PostgreSQL a
planner locks each thought with ``FOR UPDATE SKIP LOCKED`` and the agent's
planning state row around the goalKey check, executors claim with
``SKIP LOCKED``; on SQLite every write transaction takes the database lock at
BEGIN (``transaction_mode=IMMEDIATE``) and the conditional UPDATEs decide.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Min, QuerySet
from django.utils import timezone

from core.errors import Conflict, NotFound
from stream.core.dedup import content_hash
from stream.core.frames import facts_from_wire
from stream.core.planning import (
    DRIVE_TICK_INTERVAL_MS,
    DRIVE_TICK_SYSTEM,
    PLAN_ROUTES,
    ConversionOutcome,
    DriveInputs,
    OpenTask,
    OriginKind,
    SoakCheck,
    SoakObservations,
    SoakTask,
    StallClass,
    StallInputs,
    TaskAction,
    TaskOrigin,
    TaskStatus,
    ThoughtCandidate,
    apply_metadata_patch,
    build_task_metadata,
    category_for,
    check_progress,
    classify_stall,
    decide_conversion,
    decide_drive_tick,
    decide_transition,
    drive_tick_thought,
    evaluate_soak,
    keys_to_warn,
    origin_to_wire,
    project_incoming_metadata,
)
from stream.core.types import TimeOfDay
from stream.models import Agent, PlanningState, Task, TaskEvent, Thought, WorldSnapshot
from stream.services.counters import counters_get, counters_increment, counters_reset
from stream.services.thoughts import (
    ThoughtInput,
    percept_record,
    thoughts_ack,
    thoughts_actionable,
    thoughts_publish,
)

logger = logging.getLogger(__name__)

DRIVE_TICK_TYPE = "drive_tick"
SHELTER_GOAL_KEY = "build:basic_shelter"


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _ms_or_none(moment: datetime | None) -> int | None:
    return None if moment is None else _ms(moment)


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


def _lock_state(agent: Agent) -> PlanningState:
    """Lock the agent's planning state for the current transaction.

    The row serializes the goalKey check-then-create of concurrent planners
    and drive ticks of one agent (PostgreSQL; SQLite is already serial).
    """
    planning_state_get(agent=agent)
    return PlanningState.objects.select_for_update().get(agent=agent)


def executor_seen(*, agent: Agent, executor: str, now: datetime) -> None:
    """Record that the agent's executor called the task API (liveness)."""
    planning_state_get(agent=agent)
    PlanningState.objects.filter(agent=agent).update(
        executor_seen_at=now, executor_name=executor[:200]
    )


# --- wire ----------------------------------------------------------------------


def task_origin(task: Task) -> TaskOrigin | None:
    if not task.origin_kind:
        return None
    return TaskOrigin(
        OriginKind(task.origin_kind), task.origin_name, task.origin_parent_id
    )


def _source_convert_eligible(task: Task) -> bool | None:
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
            created_ms=_ms(task.created_at),
            blocked_reason=task.blocked_reason,
            blocked_at_ms=_ms_or_none(task.blocked_at),
            source_convert_eligible=_source_convert_eligible(task),
            executor_seen_ms=_ms_or_none(executor_seen_at),
        ),
        now_ms=_ms(now),
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


def _event(
    task: Task, kind: str, *, now: datetime, actor: str = "", **detail: Any
) -> None:
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
        _event(task, "created", now=now, actor=origin.name if origin else "")
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
        task = _locked_task(agent, task_id)
        result = apply_metadata_patch(task.metadata, patch, now_iso=now.isoformat())
        task.metadata = result.metadata
        task.updated_at = now
        task.save(update_fields=["metadata", "updated_at"])
        _event(task, "metadata", now=now, keys=sorted(patch), ignored=result.ignored)
    if result.ignored:
        logger.info(
            "[TaskStore] metadata_patch_ignored id=%s keys=%s",
            task.pk,
            ",".join(result.ignored),
            extra={"agent": agent.name, "task_id": task.pk},
        )
    return task


def _open_tasks(agent: Agent, *, goal_key: str | None = None) -> list[OpenTask]:
    rows = Task.objects.filter(
        agent=agent, status__in=[TaskStatus.PENDING, TaskStatus.ACTIVE]
    )
    if goal_key is not None:
        rows = rows.filter(goal_key=goal_key)
    return [
        OpenTask(pk, key, TaskStatus(status), _ms(created), progress)
        for pk, key, status, created, progress in rows.values_list(
            "pk", "goal_key", "status", "created_at", "progress"
        )
    ]


# --- executor transitions ------------------------------------------------------


def _locked_task(agent: Agent, task_id: int) -> Task:
    task = (
        Task.objects.select_for_update(of=("self",))
        .select_related("agent", "thought")
        .filter(pk=task_id, agent=agent)
        .first()
    )
    if task is None:
        raise NotFound(f"no task {task_id} for agent {agent.name}")
    return task


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
    _event(task, "claimed", now=now, actor=executor)
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
            task = _locked_task(agent, task_id)
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
                _event(task, "claimed", now=now, actor=executor)
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
        task = _locked_task(agent, task_id)
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
        _event(
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
        task = _locked_task(agent, task_id)
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
        _event(task, to_status.value, now=now, actor=executor, reason=reason or None)
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


def task_list(*, agent: Agent, status: str | None = None) -> QuerySet[Task]:
    """The agent's tasks, newest first, optionally of one status."""
    rows = Task.objects.filter(agent=agent).select_related("agent", "thought")
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("-created_at", "-pk")


# --- thought-to-task poll ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThoughtOutcome:
    thought_id: int
    outcome: ConversionOutcome
    reason: str
    task_id: int | None = None


@dataclass(frozen=True, slots=True)
class PollResult:
    """One poll cycle: ``fetched`` thoughts, each converted, skipped or
    errored; ``acked`` of them processed after the batch ack."""

    fetched: int
    converted: int
    skipped: int
    errors: int
    task_ids: tuple[int, ...]
    acked: int
    outcomes: tuple[ThoughtOutcome, ...] = ()


def _candidate(thought: Thought) -> ThoughtCandidate:
    return ThoughtCandidate(
        thought_id=thought.pk,
        convert_eligible=thought.convert_eligible,
        grounding_passed=thought.grounding_passed,
        goal_key=thought.goal_key,
        metadata=thought.metadata if isinstance(thought.metadata, dict) else {},
        source=thought.source,
        eligibility_reason=thought.eligibility_reason,
    )


def _lock_thought(pk: int) -> Thought | None:
    rows = Thought.objects.filter(pk=pk)
    if connection.features.has_select_for_update_skip_locked:
        rows = rows.select_for_update(skip_locked=True)
    return rows.first()


def _convert(agent: Agent, thought: Thought, now: datetime) -> ThoughtOutcome:
    skipped = ConversionOutcome.SKIPPED
    with transaction.atomic():
        locked = _lock_thought(thought.pk)
        if locked is None:
            # Another planner holds it (or retention just pruned it).
            return ThoughtOutcome(thought.pk, skipped, "claimed_by_other_planner")
        if Task.objects.filter(thought_id=locked.pk).exists():
            return ThoughtOutcome(thought.pk, skipped, "already_converted")
        candidate = _candidate(locked)
        _lock_state(agent)
        decision = decide_conversion(
            candidate, open_tasks=_open_tasks(agent), now_ms=_ms(now)
        )
        if decision.draft is None:
            return ThoughtOutcome(thought.pk, decision.outcome, decision.reason)
        draft = decision.draft
        try:
            with transaction.atomic():
                task = task_add(
                    agent=agent,
                    thought=locked,
                    title=draft.title,
                    action=draft.action,
                    target=draft.target,
                    amount=draft.amount,
                    metadata=draft.metadata,
                    origin=draft.origin,
                    tags=draft.tags,
                    category=draft.category,
                    now=now,
                )
        except IntegrityError:
            if Task.objects.filter(thought_id=locked.pk).exists():
                return ThoughtOutcome(thought.pk, skipped, "already_converted")
            raise
    return ThoughtOutcome(thought.pk, ConversionOutcome.CONVERTED, "converted", task.pk)


def _convert_logged(agent: Agent, thought: Thought, now: datetime) -> ThoughtOutcome:
    try:
        outcome = _convert(agent, thought, now)
    except Exception as exc:
        logger.exception(
            "[Thought-to-task] error thought=%s reason=exception:%s",
            thought.pk,
            type(exc).__name__,
            extra={"agent": agent.name},
        )
        return ThoughtOutcome(
            thought.pk, ConversionOutcome.ERROR, f"exception:{type(exc).__name__}"
        )
    if outcome.outcome == ConversionOutcome.CONVERTED:
        logger.info(
            "[Thought-to-task] converted thought=%s task=%s",
            thought.pk,
            outcome.task_id,
            extra={"agent": agent.name},
        )
    else:
        logger.info(
            "[Thought-to-task] %s thought=%s reason=%s",
            outcome.outcome.value,
            thought.pk,
            outcome.reason,
            extra={"agent": agent.name},
        )
    return outcome


def planning_poll_once(
    *,
    agent: Agent,
    processed_by: str = "planner",
    now: datetime | None = None,
    limit: int = 100,
) -> PollResult:
    """Fetch the actionable feed, evaluate every thought, ack all of them.

    Each fetched thought is converted, skipped (with a reason) or errored,
    oldest first, each in its own transaction; then all fetched ids are acked
    in one batch (SC-B2), the ack-batch line logged before the stream's
    ``Acked`` line. An empty feed is not acked (there is nothing to ack).
    Afterwards the idle line is logged when no task is active or pending
    (KA-A3). convertEligible=false thoughts never become tasks (PA-D3).
    """
    now = now or timezone.now()
    thoughts = thoughts_actionable(agent=agent, limit=limit)
    ordered = sorted(thoughts, key=lambda t: (t.created_at, t.pk))
    outcomes = tuple(_convert_logged(agent, t, now) for t in ordered)
    converted = sum(o.outcome == ConversionOutcome.CONVERTED for o in outcomes)
    errors = sum(o.outcome == ConversionOutcome.ERROR for o in outcomes)
    skipped = len(outcomes) - converted - errors
    acked = 0
    if thoughts:
        logger.info(
            "[Thought-to-task] ack batch size=%s fetched=%s converted=%s skipped=%s "
            "errors=%s",
            len(thoughts),
            len(thoughts),
            converted,
            skipped,
            errors,
            extra={"agent": agent.name},
        )
        ack = thoughts_ack(
            agent=agent,
            thought_ids=[t.pk for t in thoughts],
            processed_by=processed_by,
            now=now,
        )
        acked = ack.acked
    planning_state_get(agent=agent)
    PlanningState.objects.filter(agent=agent).update(last_poll_at=now)
    planning_idle_check(agent=agent)
    return PollResult(
        fetched=len(thoughts),
        converted=converted,
        skipped=skipped,
        errors=errors,
        task_ids=tuple(o.task_id for o in outcomes if o.task_id is not None),
        acked=acked,
        outcomes=outcomes,
    )


def planning_idle_check(*, agent: Agent) -> bool:
    """Log the KA-A3 idle line when no task is active or eligible (pending)."""
    counts = dict(
        Task.objects.filter(
            agent=agent, status__in=[TaskStatus.PENDING, TaskStatus.ACTIVE]
        )
        .values("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    active = counts.get(TaskStatus.ACTIVE.value, 0)
    eligible = counts.get(TaskStatus.PENDING.value, 0)
    if active or eligible:
        return False
    logger.info(
        "[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks "
        "(active=%s, eligible=%s)",
        active,
        eligible,
        extra={"agent": agent.name},
    )
    return True


# --- drive tick (opt-in) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DriveTickOutcome:
    fired: bool
    reason: str
    thought: Thought | None = None
    goal_key: str | None = None
    due: bool = False  # the 180 s timer had elapsed (whatever the other gates)


def _has_shelter(agent: Agent) -> bool:
    return Task.objects.filter(
        agent=agent, goal_key=SHELTER_GOAL_KEY, status=TaskStatus.COMPLETED
    ).exists()


def drive_tick(
    *,
    agent: Agent,
    now: datetime | None = None,
    game_mode: str | None,
    health: float,
    food: float,
    hostiles: int,
    inventory: Mapping[str, int],
    night_approaching: bool = False,
    has_shelter: bool | None = None,
) -> DriveTickOutcome:
    """One drive-tick evaluation (seed 004 §3), with explicit inputs.

    Never reads ``DRIVE_TICK_ENABLED``: callers decide whether drive ticks
    run at all (the beat path only when enabled; the soak always). When the
    gates pass and no open task suppresses the chosen goal, it stores a
    drive-tick thought in §3.4's shape (convertEligible true by construction:
    a goal, its key and a ``drive_tick`` grounding pass), increments
    ``drive_ticks`` and restarts the 180 s timer; the next planning poll
    converts it like any actionable thought. ``has_shelter`` defaults to
    "a ``build:basic_shelter`` task completed".
    """
    now = now or timezone.now()
    shelter = _has_shelter(agent) if has_shelter is None else has_shelter
    with transaction.atomic():
        state = _lock_state(agent)
        last_ms = _ms_or_none(state.last_drive_tick_at)
        due = last_ms is None or _ms(now) - last_ms >= DRIVE_TICK_INTERVAL_MS
        decision = decide_drive_tick(
            DriveInputs(
                health=health,
                food=food,
                hostiles=hostiles,
                game_mode=game_mode,
                now_ms=_ms(now),
                last_tick_ms=last_ms,
            ),
            inventory=inventory,
            night_approaching=night_approaching,
            has_shelter=shelter,
            open_tasks=_open_tasks(agent),
        )
        if not decision.fire or decision.goal is None or decision.goal_key is None:
            thought = None
        else:
            shape = drive_tick_thought(decision.goal, goal_key=decision.goal_key)
            thought = Thought.objects.create(
                agent=agent,
                type=DRIVE_TICK_TYPE,
                content=shape.content,
                content_hash=content_hash(shape.content),
                convert_eligible=True,
                eligibility_reason="drive_tick",
                grounding_passed=True,
                goal_key=shape.goal_key,
                novelty=Thought.Novelty.HIGH,
                source=DRIVE_TICK_SYSTEM,
                metadata=shape.metadata,
                created_at=now,
            )
            counters_increment(agent=agent, drive_ticks=1)
            PlanningState.objects.filter(pk=state.pk).update(last_drive_tick_at=now)
    if thought is None:
        log = logger.debug if decision.reason == "interval" else logger.info
        log(
            "[DriveTick] skip reason=%s goalKey=%s",
            decision.reason,
            decision.goal_key,
            extra={"agent": agent.name},
        )
        return DriveTickOutcome(False, decision.reason, None, decision.goal_key, due)
    logger.info(
        "[DriveTick] fired id=%s goalKey=%s reason=%s",
        thought.pk,
        decision.goal_key,
        decision.reason,
        extra={"agent": agent.name},
    )
    logger.info(
        "[Cognition] thought_published processed=false",
        extra={"id": thought.pk, "agent": agent.name},
    )
    return DriveTickOutcome(True, decision.reason, thought, decision.goal_key, due)


def drive_tick_from_latest(
    *, agent: Agent, game_mode: str | None, now: datetime | None = None
) -> DriveTickOutcome:
    """A drive tick whose inputs come from the agent's latest percept.

    food is the percept's hunger bar; hostiles the count of nearby entities
    marked hostile; night approaches at sunset and night. ``game_mode`` is
    the caller's (frame v1 has no game mode; a future ``bot.gameMode`` in
    the stored percept wins).
    """
    snapshot = (
        WorldSnapshot.objects.filter(agent=agent)
        .order_by("-received_at", "-pk")
        .first()
    )
    if snapshot is None:
        logger.info("[DriveTick] skip reason=no_percept", extra={"agent": agent.name})
        return DriveTickOutcome(False, "no_percept")
    facts = facts_from_wire(snapshot.facts)
    raw_bot = snapshot.facts.get("facts", {}).get("bot", {})
    mode = raw_bot.get("gameMode") if isinstance(raw_bot, dict) else None
    inventory: dict[str, int] = {}
    for item in facts.bot.inventory:
        inventory[item.item] = inventory.get(item.item, 0) + item.count
    return drive_tick(
        agent=agent,
        now=now,
        game_mode=mode if isinstance(mode, str) else game_mode,
        health=facts.bot.health,
        food=facts.bot.hunger,
        hostiles=sum(e.count for e in facts.world.nearby_entities if e.hostile),
        inventory=inventory,
        night_approaching=facts.bot.time_of_day in (TimeOfDay.SUNSET, TimeOfDay.NIGHT),
    )


# --- scheduled cycle -----------------------------------------------------------


def planning_cycle(*, agent_id: int, now: datetime | None = None) -> PollResult | None:
    """What the beat runs per agent: the opt-in drive tick, then one poll.

    Returns ``None`` for an unknown or inactive agent (a stale task id).
    """
    agent = Agent.objects.filter(pk=agent_id, is_active=True).first()
    if agent is None:
        return None
    if settings.DRIVE_TICK_ENABLED:
        drive_tick_from_latest(
            agent=agent, game_mode=settings.DRIVE_TICK_GAME_MODE, now=now
        )
    return planning_poll_once(agent=agent, now=now, limit=settings.PLANNING_POLL_LIMIT)


def planning_agents_due() -> list[int]:
    """Ids of the agents the beat should poll for (every active agent)."""
    return list(
        Agent.objects.filter(is_active=True).order_by("pk").values_list("pk", flat=True)
    )


# --- soak (seed 004 §7) -----------------------------------------------------------

SOAK_EXECUTOR = "soak-executor"
SOAK_MIN_MINUTES = 11
# The executor is away long enough for one task to pass the 5-minute stuck
# timeout (check 5); the last two minutes run in creative mode (check 8).
SOAK_OUTAGE_S = (170, 510)
SOAK_CREATIVE_TAIL_S = 120
# What the simulated model says, and when (seconds into the run): a grounded
# goal, the same text again (content dedup: low novelty, not eligible), no
# goal, a new grounded goal, an ungrounded one.
SOAK_MODEL_SCRIPT: tuple[tuple[int, str], ...] = (
    (60, "Two cows graze at the forest edge. [GOAL: find cow]\nINTENT: explore"),
    (180, "Two cows graze at the forest edge. [GOAL: find cow]\nINTENT: explore"),
    (300, "The forest is quiet; nothing needs doing.\nINTENT: none"),
    (420, "The cows wandered a little further. [GOAL: find cow]\nINTENT: explore"),
    (540, "Something may lurk in the dark. [GOAL: find zombie]"),
)


@dataclass(frozen=True, slots=True)
class SoakReport:
    """A soak run: the 8 checks, the stall classes seen, and what it did.

    ``stall_classes`` maps each §7.3 class to the tasks classified so at any
    sampled step; ``open_stall_classes`` to the open tasks so classified at
    the end.
    """

    agent: str
    minutes: int
    step_s: int
    started_at: datetime
    ended_at: datetime
    checks: tuple[SoakCheck, ...]
    stall_classes: dict[str, list[int]]
    open_stall_classes: dict[str, list[int]]
    counters: dict[str, int]
    tasks: tuple[dict[str, Any], ...]
    polls: int
    fetched: int
    acked: int

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


def _soak_facts(inventory: Mapping[str, int]) -> dict[str, Any]:
    """A stable survival world (health 20, food 20, no hostiles, §7.1)."""
    held = [{"item": k, "count": n} for k, n in sorted(inventory.items()) if n > 0]
    return {
        "facts": {
            "bot": {
                "position": {"x": 10, "y": 64, "z": -3},
                "health": 20,
                "hunger": 20,
                "inventorySummary": held,
                "timeOfDay": "day",
            },
            "world": {
                "biome": "forest",
                "nearbyEntities": [{"kind": "cow", "count": 2, "distanceMin": 6}],
            },
        }
    }


def _soak_effect(task: Task, inventory: dict[str, int]) -> None:
    """What finishing a task does to the simulated inventory."""
    logs = inventory.get("oak_log", 0)
    if task.action in ("collect", "gather", "mine"):
        inventory[task.target] = inventory.get(task.target, 0) + (task.amount or 1)
    elif task.action == "craft":
        inventory[task.target] = inventory.get(task.target, 0) + (task.amount or 1)
        inventory["oak_log"] = max(0, logs - 1)
    elif task.action == "build":
        inventory["oak_log"] = max(0, logs - 4)


def _soak_execute(
    agent: Agent, current: int | None, inventory: dict[str, int], now: datetime
) -> int | None:
    """One step of the simulated executor: claim, or move the claimed task
    half-way, or finish it (an unplannable one fails)."""
    if current is None:
        claimed = task_claim(agent=agent, executor=SOAK_EXECUTOR, now=now)
        return None if claimed is None else claimed.pk
    task = Task.objects.get(pk=current)
    if task.action not in PLAN_ROUTES:
        task_fail(
            agent=agent,
            task_id=current,
            executor=SOAK_EXECUTOR,
            reason="unplannable",
            now=now,
        )
        return None
    progress = min(1.0, task.progress + 0.5)
    if progress >= 1.0:
        done = task_complete(
            agent=agent, task_id=current, executor=SOAK_EXECUTOR, now=now
        )
        _soak_effect(done, inventory)
        return None
    task_progress(
        agent=agent,
        task_id=current,
        executor=SOAK_EXECUTOR,
        progress=progress,
        now=now,
    )
    return current


def _sample_stalls(agent: Agent, now: datetime, into: dict[str, set[int]]) -> None:
    seen = planning_state_get(agent=agent).executor_seen_at
    open_tasks = Task.objects.filter(
        agent=agent, status__in=[TaskStatus.PENDING, TaskStatus.ACTIVE]
    ).select_related("thought")
    for task in open_tasks:
        stall = task_stall_class(task, now=now, executor_seen_at=seen)
        if stall is not None:
            into[stall.value].add(task.pk)


def soak_run(
    *,
    agent: Agent,
    minutes: int = 12,
    step_s: int = 10,
    start: datetime | None = None,
    model_emits_intent: bool | None = None,
) -> SoakReport:
    """Run a simulated agent against the real services on a compressed clock.

    Every ``step_s`` simulated seconds: a percept of a stable survival world,
    a drive-tick evaluation (drive ticks always run here, whatever
    ``DRIVE_TICK_ENABLED`` says), the scripted model thoughts that are due
    (through the real pipeline), one planning poll, one executor step
    (away during ``SOAK_OUTAGE_S``). The last ``SOAK_CREATIVE_TAIL_S`` run in
    creative mode. The clock runs from ``start`` (default: ``minutes`` ago,
    so every row lies in the past) and counters are reset at ``start``; use
    a dedicated agent. Checks are computed from the stored rows.
    """
    if minutes < SOAK_MIN_MINUTES:
        raise ValueError(
            f"a soak needs at least {SOAK_MIN_MINUTES} minutes to show the "
            "stuck-timeout recovery and the creative window"
        )
    total_s = minutes * 60
    start = (start or timezone.now() - timedelta(seconds=total_s)).replace(
        microsecond=0
    )
    end = start + timedelta(seconds=total_s)
    run_id = f"soak-{start:%Y%m%dT%H%M%S}"
    counters_reset(agent=agent, now=start)
    inventory: dict[str, int] = {}
    script = list(SOAK_MODEL_SCRIPT)
    samples: dict[str, set[int]] = {c.value: set() for c in StallClass}
    creative_from = total_s - SOAK_CREATIVE_TAIL_S
    creative_before: int | None = None
    refusals = polls = fetched = acked = 0
    current: int | None = None
    for offset in range(0, total_s, step_s):
        now = start + timedelta(seconds=offset)
        creative = offset >= creative_from
        percept_record(agent=agent, document=_soak_facts(inventory), now=now)
        if creative and creative_before is None:
            creative_before = counters_get(agent=agent).drive_ticks
        tick = drive_tick_from_latest(
            agent=agent, game_mode="creative" if creative else "survival", now=now
        )
        refusals += int(creative and tick.due and not tick.fired)
        while script and script[0][0] <= offset:
            _, text = script.pop(0)
            item = ThoughtInput(content=text, source="soak-model", eval_run_id=run_id)
            thoughts_publish(agent=agent, items=[item], now=now)
        poll = planning_poll_once(agent=agent, processed_by="soak-planner", now=now)
        polls, fetched, acked = polls + 1, fetched + poll.fetched, acked + poll.acked
        if not SOAK_OUTAGE_S[0] <= offset < SOAK_OUTAGE_S[1]:
            current = _soak_execute(agent, current, inventory, now)
        _sample_stalls(agent, now, samples)

    counters = counters_get(agent=agent)
    rows = list(
        Task.objects.filter(agent=agent, created_at__gte=start, created_at__lt=end)
        .select_related("agent", "thought")
        .order_by("created_at", "pk")
    )
    first_progress = dict(
        TaskEvent.objects.filter(task__in=rows, progress__gt=0)
        .values("task")
        .annotate(first=Min("created_at"))
        .values_list("task", "first")
    )
    observed = tuple(
        SoakTask(
            task_id=t.pk,
            goal_key=t.goal_key,
            is_drive_tick=t.origin_name == DRIVE_TICK_SYSTEM,
            status=TaskStatus(t.status),
            created_ms=_ms(t.created_at),
            claimed_ms=_ms_or_none(t.claimed_at),
            first_progress_ms=_ms_or_none(first_progress.get(t.pk)),
            finished_ms=_ms_or_none(t.finished_at),
            source_convert_eligible=_source_convert_eligible(t),
        )
        for t in rows
    )
    checks = evaluate_soak(
        SoakObservations(
            end_ms=_ms(end),
            tasks=observed,
            drive_ticks=counters.drive_ticks,
            goal_tags=counters.goal_tags,
            intent_extractions=counters.intent_extractions,
            model_emits_intent=model_emits_intent,
            creative_drive_ticks=None
            if creative_before is None
            else counters.drive_ticks - creative_before,
            creative_due_refusals=refusals,
        )
    )
    seen = planning_state_get(agent=agent).executor_seen_at
    at_end: dict[str, list[int]] = {c.value: [] for c in StallClass}
    for task in rows:
        stall = task_stall_class(task, now=end, executor_seen_at=seen)
        if stall is not None:
            at_end[stall.value].append(task.pk)
    report = SoakReport(
        agent=agent.name,
        minutes=minutes,
        step_s=step_s,
        started_at=start,
        ended_at=end,
        checks=checks,
        stall_classes={k: sorted(v) for k, v in samples.items()},
        open_stall_classes=at_end,
        counters={
            "llmCalls": counters.llm_calls,
            "goalTags": counters.goal_tags,
            "driveTicks": counters.drive_ticks,
            "intentExtractions": counters.intent_extractions,
            "contentSuppressions": counters.content_suppressions,
        },
        tasks=tuple(task_to_wire(t, now=end, executor_seen_at=seen) for t in rows),
        polls=polls,
        fetched=fetched,
        acked=acked,
    )
    logger.info(
        "[Soak] finished agent=%s minutes=%s passed=%s checks=%s/%s",
        agent.name,
        minutes,
        str(report.passed).lower(),
        sum(c.passed for c in checks),
        len(checks),
        extra={"agent": agent.name},
    )
    return report


def soak_report_to_wire(report: SoakReport) -> dict[str, Any]:
    """The JSON report (camelCase keys)."""
    return {
        "agent": report.agent,
        "minutes": report.minutes,
        "stepS": report.step_s,
        "startedAt": report.started_at.isoformat(),
        "endedAt": report.ended_at.isoformat(),
        "passed": report.passed,
        "checks": [
            {
                "id": c.check_id,
                "name": c.name,
                "passed": c.passed,
                "observed": c.observed,
            }
            for c in report.checks
        ],
        "stallClasses": report.stall_classes,
        "openStallClassesAtEnd": report.open_stall_classes,
        "counters": report.counters,
        "polls": report.polls,
        "fetched": report.fetched,
        "acked": report.acked,
        "tasks": list(report.tasks),
    }


def soak_report_text(report: SoakReport) -> str:
    """The human-readable report: one line per check, then the stall classes."""
    lines = [
        f"Soak report: agent {report.agent}, {report.minutes} simulated minutes "
        f"(step {report.step_s} s), {report.started_at.isoformat()} .. "
        f"{report.ended_at.isoformat()}",
        f"polls={report.polls} fetched={report.fetched} acked={report.acked} "
        f"tasks={len(report.tasks)} "
        + " ".join(f"{k}={v}" for k, v in report.counters.items()),
        "",
        "Acceptance checks (seed 004 §7.2):",
    ]
    for check in report.checks:
        verdict = "PASS" if check.passed else "FAIL"
        lines.append(f"  {verdict}  {check.check_id}. {check.name}: {check.observed}")
    lines += ["", "Stall classes (seed 004 §7.3): seen during the run / open at end"]
    for name, seen in report.stall_classes.items():
        lines.append(
            f"  {name}: {len(seen)} {seen} / {report.open_stall_classes.get(name, [])}"
        )
    passed = sum(c.passed for c in report.checks)
    verdict = "PASS" if report.passed else "FAIL"
    lines += ["", f"Result: {verdict} ({passed}/{len(report.checks)} checks)"]
    return "\n".join(lines) + "\n"
