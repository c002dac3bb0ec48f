"""Planning use cases: the thought-to-task poll and the scheduled cycle.

The rules are ``stream.core.planning``'s; this module reads the actionable
feed, converts through the task store, acks, and logs the contract lines
(exact):

- ``[Thought-to-task] ack batch size=<N> fetched=<N> converted=<C>
  skipped=<S> errors=<E>``, logged before the stream's ``[CognitiveStream]
  Acked <N>/<N> thoughts`` (SC-B2);
- ``[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active=0,
  eligible=0)`` (KA-A3).

Concurrency: one task per thought is a unique constraint; on PostgreSQL a
planner locks each thought with ``FOR UPDATE SKIP LOCKED`` and the agent's
planning state row around the goalKey check; on SQLite every write
transaction takes the database lock at BEGIN (``transaction_mode=IMMEDIATE``)
and the conditional UPDATEs decide.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count
from django.utils import timezone

from core.times import epoch_ms
from stream.core.planning import (
    ConversionOutcome,
    TaskStatus,
    ThoughtCandidate,
    decide_conversion,
)
from stream.models import Agent, PlanningState, Task, Thought
from stream.services.drive_tick import drive_tick_from_latest
from stream.services.planning_task_store import (
    open_tasks,
    planning_state_get,
    planning_state_lock,
    task_add,
)
from stream.services.thought_feed import thoughts_ack, thoughts_actionable

logger = logging.getLogger(__name__)


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
        planning_state_lock(agent=agent)
        scenario = candidate.metadata.get("evalScenario")
        decision = decide_conversion(
            candidate,
            open_tasks=open_tasks(
                agent=agent,
                eval_scenario=scenario if isinstance(scenario, str) else None,
            ),
            now_ms=epoch_ms(now),
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
        extra={"agent": agent.name, "periodic": True},
    )
    return True


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
