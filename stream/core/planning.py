"""Planning rules: which thoughts become tasks, how tasks move, when they stall.

Decides, without I/O, what the task store, the executor transitions and the
thought-to-task poll act on (the agency contract §1, §3.2, §4, §7.3; the stream
contract SC-B2,
PA-D3, I-3); the metadata rules are ``stream.core.planning_metadata``'s, the
stall taxonomy ``stream.core.planning_stalls``', the drive tick's rules
``stream.core.drive_tick``'s, the soak checks ``stream.core.soak``'s. Time
arrives as ``now_ms``; nothing here reads a clock, settings or the database.
Invariants:

- Metadata projection (§1.1): of a caller's metadata only
  ``PROPAGATED_META_KEYS`` survive; ``REBUILT_KEYS`` are set by the store;
  every other key is dropped and reported so the store can warn once per key.
- goalKey (§1.3): ``''`` (or blank) is never a goal key; it is treated as
  absent at every layer here, and the database holds the last line.
- Idempotency (§3.2): an open (pending or active) task with the same goalKey
  suppresses a new goal unless it is stuck: 0 progress and at least
  ``STUCK_PENDING_MS`` old. ``suppresses`` is exactly ``open and not stuck``.
- Conversion (§4.1, PA-D3): only a thought whose convertEligible is exactly
  true, with an extracted goal that passed grounding, becomes a task.
- Transitions: ``TRANSITIONS`` is the whole table; anything else is illegal.
- Stall taxonomy (§7.3): every open task gets at most one class, by a fixed
  precedence; terminal tasks get none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from stream.core.goals import canonical_goal_key
from stream.core.planning_metadata import goal_key_or_none
from stream.core.thought_decision import MalformedGoal, decision_from_wire

# --- task statuses and transitions -------------------------------------------


class TaskStatus(StrEnum):
    PENDING = "pending"
    ACTIVE = "active"
    COMPLETED = "completed"
    FAILED = "failed"


OPEN_STATUSES: Final = frozenset({TaskStatus.PENDING, TaskStatus.ACTIVE})
TERMINAL_STATUSES: Final = frozenset({TaskStatus.COMPLETED, TaskStatus.FAILED})


class TaskAction(StrEnum):
    CLAIM = "claim"
    PROGRESS = "progress"
    COMPLETE = "complete"
    FAIL = "fail"


TRANSITIONS: Final[Mapping[tuple[TaskStatus, TaskAction], TaskStatus]] = {
    (TaskStatus.PENDING, TaskAction.CLAIM): TaskStatus.ACTIVE,
    (TaskStatus.ACTIVE, TaskAction.PROGRESS): TaskStatus.ACTIVE,
    (TaskStatus.ACTIVE, TaskAction.COMPLETE): TaskStatus.COMPLETED,
    (TaskStatus.ACTIVE, TaskAction.FAIL): TaskStatus.FAILED,
    # An executor may give up on a task it cannot even start (unplannable).
    (TaskStatus.PENDING, TaskAction.FAIL): TaskStatus.FAILED,
}


@dataclass(frozen=True, slots=True)
class TransitionDecision:
    """``to_status`` is set exactly when ``allowed``; ``reason`` is a code."""

    allowed: bool
    to_status: TaskStatus | None
    reason: str


def allowed_from(action: TaskAction) -> frozenset[TaskStatus]:
    """The statuses from which ``action`` is legal (for conditional UPDATEs)."""
    return frozenset(status for status, act in TRANSITIONS if act == action)


def decide_transition(current: TaskStatus, action: TaskAction) -> TransitionDecision:
    """Look ``(current, action)`` up in ``TRANSITIONS``.

    Illegal pairs get ``illegal_transition:<status>-><action>``; total.
    """
    target = TRANSITIONS.get((current, action))
    if target is None:
        return TransitionDecision(
            False, None, f"illegal_transition:{current.value}->{action.value}"
        )
    return TransitionDecision(True, target, "ok")


def check_progress(current: float, new: float) -> str | None:
    """``None`` when ``new`` is acceptable progress after ``current``.

    Progress is a fraction in [0, 1] and never goes backwards, so the stuck
    rule ("0 progress") cannot be re-entered by an executor resetting it.
    Codes: ``progress_out_of_range``, ``progress_regressed``.
    """
    if not 0.0 <= new <= 1.0:
        return "progress_out_of_range"
    if new < current:
        return "progress_regressed"
    return None


# --- origin ----------------------------------------------------------------------


class OriginKind(StrEnum):
    EXECUTOR = "executor"
    COGNITION = "cognition"
    GOAL_RESOLVER = "goal_resolver"
    GOAL_SOURCE = "goal_source"
    API = "api"


@dataclass(frozen=True, slots=True)
class TaskOrigin:
    """Who created a task; stamped once at creation, never changed (§1.2)."""

    kind: OriginKind
    name: str
    parent_task_id: int | None = None


def origin_to_wire(origin: TaskOrigin | None) -> dict[str, Any] | None:
    if origin is None:
        return None
    return {
        "kind": origin.kind.value,
        "name": origin.name,
        "parentTaskId": origin.parent_task_id,
    }


# --- plan routes, categories ---------------------------------------------------

# The executor routes planning knows; an action without one is unplannable.
PLAN_ROUTES: Final[Mapping[str, str]] = {
    "collect": "acquisition",
    "gather": "acquisition",
    "mine": "acquisition",
    "craft": "crafting",
    "smelt": "crafting",
    "build": "building",
    "repair": "building",
    "explore": "exploration",
    "find": "exploration",
    "navigate": "navigation",
}
CATEGORIES: Final[Mapping[str, str]] = {
    "collect": "gathering",
    "gather": "gathering",
    "mine": "gathering",
    "craft": "crafting",
    "smelt": "crafting",
    "build": "building",
    "repair": "building",
    "explore": "exploration",
    "find": "exploration",
    "navigate": "exploration",
}


def category_for(action: str) -> str:
    return CATEGORIES.get(action, "general")


def task_title(action: str, target: str, amount: int | None) -> str:
    """``collect oak_log x8``; the amount only when there is one."""
    title = f"{action} {target}".strip()
    return f"{title} x{amount}" if amount is not None else title


# --- idempotency by goalKey (§3.2) ---------------------------------------------

STUCK_PENDING_MS: Final = 5 * 60 * 1000


@dataclass(frozen=True, slots=True)
class OpenTask:
    """The part of a stored task the idempotency rule reads."""

    task_id: int
    goal_key: str | None
    status: TaskStatus
    created_ms: int
    progress: float


def is_stuck(task: OpenTask, *, now_ms: int) -> bool:
    """Open, 0 progress, and at least ``STUCK_PENDING_MS`` old.

    Age counts from creation for pending and active tasks alike: a task an
    executor claimed but never moved is as stuck as one nobody claimed.
    """
    return (
        task.status in OPEN_STATUSES
        and task.progress <= 0.0
        and now_ms - task.created_ms >= STUCK_PENDING_MS
    )


def suppresses(task: OpenTask, *, goal_key: str, now_ms: int) -> bool:
    """Whether ``task`` blocks a new goal with ``goal_key``.

    Same goalKey, open, and (younger than 5 min or progress > 0).
    """
    return (
        task.goal_key == goal_key
        and task.status in OPEN_STATUSES
        and not is_stuck(task, now_ms=now_ms)
    )


def find_suppressor(
    open_tasks: Iterable[OpenTask], *, goal_key: str, now_ms: int
) -> OpenTask | None:
    """The oldest task suppressing ``goal_key``, or ``None``."""
    blocking = [
        t for t in open_tasks if suppresses(t, goal_key=goal_key, now_ms=now_ms)
    ]
    return min(blocking, key=lambda t: (t.created_ms, t.task_id), default=None)


# --- thought-to-task conversion ----------------------------------------------


class ConversionOutcome(StrEnum):
    CONVERTED = "converted"
    SKIPPED = "skipped"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class ThoughtCandidate:
    """What the converter reads of a thought from the actionable feed."""

    thought_id: int
    convert_eligible: bool | None
    grounding_passed: bool | None
    goal_key: str | None
    metadata: Mapping[str, Any]
    source: str
    eligibility_reason: str = ""


@dataclass(frozen=True, slots=True)
class TaskDraft:
    """A task the store should add; ``metadata`` is the incoming metadata
    (projected by the store, like any caller's)."""

    title: str
    action: str
    target: str
    amount: int | None
    goal_key: str | None
    origin: TaskOrigin
    tags: tuple[str, ...]
    category: str
    solver: str | None
    metadata: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ConversionDecision:
    """``draft`` is set exactly when ``outcome`` is CONVERTED."""

    outcome: ConversionOutcome
    reason: str
    draft: TaskDraft | None = None
    suppressed_by: int | None = None


def _amount(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def decide_conversion(
    candidate: ThoughtCandidate, *, open_tasks: Iterable[OpenTask], now_ms: int
) -> ConversionDecision:
    """Convert, skip (with a reason) or error, for one actionable thought.

    Order: ``not_convert_eligible`` (anything but exactly true; PA-D3, §4.1),
    ``no_extracted_goal``, ``malformed_extracted_goal`` (an error: the thought
    cannot be read), ``grounding_not_passed``, ``duplicate_goal_key`` (§3.2).
    The goal key is the thought's, else its metadata's, else the canonical
    key of the goal, each empty value treated as absent (§1.3 layers 1-2).
    """
    if candidate.convert_eligible is not True:
        return ConversionDecision(ConversionOutcome.SKIPPED, "not_convert_eligible")
    try:
        decision = decision_from_wire(
            candidate.metadata,
            convert_eligible=candidate.convert_eligible,
            eligibility_reason=candidate.eligibility_reason,
        )
    except MalformedGoal:
        return ConversionDecision(ConversionOutcome.ERROR, "malformed_extracted_goal")
    goal = decision.goal
    if goal is None:
        return ConversionDecision(ConversionOutcome.SKIPPED, "no_extracted_goal")
    action, target = goal.action, goal.target
    if candidate.grounding_passed is not True:
        return ConversionDecision(ConversionOutcome.SKIPPED, "grounding_not_passed")
    goal_key = (
        goal_key_or_none(candidate.goal_key)
        or goal_key_or_none(decision.goal_key)
        or goal_key_or_none(canonical_goal_key(action, target))
    )
    if goal_key is not None:
        blocker = find_suppressor(open_tasks, goal_key=goal_key, now_ms=now_ms)
        if blocker is not None:
            return ConversionDecision(
                ConversionOutcome.SKIPPED,
                "duplicate_goal_key",
                suppressed_by=blocker.task_id,
            )
    amount = _amount(goal.amount)
    system = candidate.metadata.get("cognitiveSystem")
    origin_name = system if isinstance(system, str) and system else "thought-to-task"
    category = category_for(action)
    raw_tags = candidate.metadata.get("tags")
    if isinstance(raw_tags, list) and all(isinstance(t, str) for t in raw_tags):
        tags = tuple(raw_tags)
    else:
        tags = ("thought-to-task", category)
    provenance = {
        "thoughtId": candidate.thought_id,
        "convertEligible": True,
        "eligibilityReason": decision.eligibility_reason,
        "source": candidate.source,
        "extractedGoalSource": candidate.metadata.get("extractedGoalSource") or "llm",
    }
    draft = TaskDraft(
        title=task_title(action, target, amount),
        action=action,
        target=target,
        amount=amount,
        goal_key=goal_key,
        origin=TaskOrigin(OriginKind.COGNITION, origin_name),
        tags=tags,
        category=category,
        solver=PLAN_ROUTES.get(action),
        metadata={"goalKey": goal_key, "taskProvenance": provenance},
    )
    return ConversionDecision(ConversionOutcome.CONVERTED, "converted", draft)
