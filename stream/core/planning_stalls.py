"""Planning's stall taxonomy (the agency contract §7.3): why a task or a thought is not
moving, as one class with its reason. Pure; ``now`` comes in."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from stream.core.planning import (
    OPEN_STATUSES,
    PLAN_ROUTES,
    OpenTask,
    TaskStatus,
    is_stuck,
)
from stream.core.planning_metadata import goal_key_or_none


class StallClass(StrEnum):
    CONVERT_ELIGIBLE_GATE = "convertEligible_gate"
    UNPLANNABLE = "unplannable"
    GOAL_KEY_MISSING = "goalKey_missing"
    BLOCKED_REASON = "blocked_reason"
    EXECUTOR_UNAVAILABLE = "executor_unavailable"
    STUCK_PENDING = "stuck_pending"


@dataclass(frozen=True, slots=True)
class StallInputs:
    """A task as the classifier sees it.

    ``source_convert_eligible`` is the originating thought's convertEligible
    (``None`` for a task that did not come from a thought);
    ``executor_seen_ms`` when the agent's executor last called the task API.
    """

    status: TaskStatus
    action: str
    goal_key: str | None
    progress: float
    created_ms: int
    blocked_reason: str
    blocked_at_ms: int | None
    source_convert_eligible: bool | None
    executor_seen_ms: int | None


def classify_stall(
    task: StallInputs, *, now_ms: int, executor_stale_ms: int
) -> StallClass | None:
    """The stall class of an open task, or ``None`` (terminal or moving).

    Precedence, root causes first: ``convertEligible_gate`` (came from a thought
    that is not exactly convertEligible), ``unplannable`` (no entry in
    ``PLAN_ROUTES``), ``goalKey_missing``, ``blocked_reason`` (reason present
    and blockedAt stamped), ``executor_unavailable`` (never seen, or not within
    ``executor_stale_ms``), ``stuck_pending`` (0 progress for 5+ minutes).
    """
    if task.status not in OPEN_STATUSES:
        return None
    if task.source_convert_eligible is not None and not task.source_convert_eligible:
        return StallClass.CONVERT_ELIGIBLE_GATE
    if task.action not in PLAN_ROUTES:
        return StallClass.UNPLANNABLE
    if goal_key_or_none(task.goal_key) is None:
        return StallClass.GOAL_KEY_MISSING
    if task.blocked_reason and task.blocked_at_ms is not None:
        return StallClass.BLOCKED_REASON
    if (
        task.executor_seen_ms is None
        or now_ms - task.executor_seen_ms > executor_stale_ms
    ):
        return StallClass.EXECUTOR_UNAVAILABLE
    opened = OpenTask(0, task.goal_key, task.status, task.created_ms, task.progress)
    if is_stuck(opened, now_ms=now_ms):
        return StallClass.STUCK_PENDING
    return None
