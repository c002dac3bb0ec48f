"""convertEligible: the single gate between a thought and a planning task.

Decides whether a sanitized thought may be converted into a task, with the
reason (PA-D2, PA-D3, KA-A8, the agency contract §4.3). Invariants:

- ``convert_eligible`` is true only when a goal was extracted, its action is
  routable and grounding passed; then the reason is ``eligible``.
- Otherwise the first failing check gives the reason, in this order:
  ``no_goal`` (no tag), ``goal_fail:<reason>`` (a tag that failed
  extraction), ``not_routable``, ``grounding_fail:<category>``.
- The INTENT label plays no part: the stream contract forbids conversion pathways other
  than explicit goal tags, and the agency contract §2.3 forbids building logic on it.
"""

from __future__ import annotations

from typing import Final

from stream.core.goals import ROUTABLE_ACTIONS
from stream.core.types import (
    EligibilityDecision,
    GoalFailReason,
    GroundingResult,
    SanitizeResult,
)

ELIGIBLE: Final = EligibilityDecision(True, "eligible")


def decide_eligibility(
    sanitized: SanitizeResult, grounding: GroundingResult
) -> EligibilityDecision:
    """The convertEligible decision for ``sanitized`` given its ``grounding``.

    Pure and total: every input gets a decision with exactly one reason code.
    A grounding failure without a category (the goal was never grounded)
    reads ``grounding_fail:<grounding.reason>``.
    """
    goal = sanitized.goal
    if goal is None:
        reason = sanitized.goal_fail_reason
        if reason is None or reason == GoalFailReason.NO_TAG:
            return EligibilityDecision(False, "no_goal")
        return EligibilityDecision(False, f"goal_fail:{reason.value}")
    if goal.action not in ROUTABLE_ACTIONS:
        return EligibilityDecision(False, "not_routable")
    if not grounding.passed:
        detail = grounding.category.value if grounding.category else grounding.reason
        return EligibilityDecision(False, f"grounding_fail:{detail}")
    return ELIGIBLE
