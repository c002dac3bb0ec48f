"""What the pipeline decided about one thought, as one typed record.

A thought carries its decision in two places: the columns the feed filters
on (``convert_eligible``, ``eligibility_reason``, ``goal_key``,
``grounding_passed``) and three keys of its metadata, ``extractedGoal``,
``goalKey`` and ``grounding``. ``decision_to_wire`` writes those keys and
``decision_from_wire`` reads them back; every writer and reader of them
goes through this pair, so a renamed field is a type error, not a key that
silently reads as absent. The bytes are the ones written before the record
existed: ``goal_to_wire`` and ``grounding_to_wire``'s shapes, in their key
order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stream.core.types import Goal, GroundingCategory, GroundingResult
from stream.core.wire import goal_to_wire, grounding_to_wire

GOAL_KEY = "extractedGoal"
GOAL_KEY_KEY = "goalKey"
GROUNDING_KEY = "grounding"
_CATEGORIES = {category.value: category for category in GroundingCategory}


class MalformedGoal(ValueError):
    """A stored ``extractedGoal`` that is not a goal: not an object, or its
    action or target not a string (an empty action included)."""


@dataclass(frozen=True, slots=True)
class ThoughtDecision:
    """The thought's goal and its key, the grounding of the goal, and
    whether the thought may become a task (``convert_eligible``) with the
    reason. ``grounding`` is None only for a thought stored without one."""

    goal: Goal | None
    goal_key: str | None
    grounding: GroundingResult | None
    convert_eligible: bool | None
    eligibility_reason: str

    @property
    def grounding_passed(self) -> bool | None:
        """The ``grounding_passed`` column: whether the goal was grounded,
        None when there was no goal to ground."""
        if self.goal is None or self.grounding is None:
            return None
        return self.grounding.passed

    def columns(self) -> dict[str, Any]:
        """The thought's columns that hold the decision, by field name."""
        return {
            "convert_eligible": self.convert_eligible,
            "eligibility_reason": self.eligibility_reason,
            "grounding_passed": self.grounding_passed,
            "goal_key": self.goal_key,
        }


def decision_to_wire(decision: ThoughtDecision) -> dict[str, Any]:
    """The decision's metadata keys: ``extractedGoal`` (``goal_to_wire``),
    ``goalKey`` (null for none, never ``""``) and ``grounding``
    (``grounding_to_wire``; null when the record has none)."""
    grounding = decision.grounding
    return {
        GOAL_KEY: goal_to_wire(decision.goal),
        GOAL_KEY_KEY: decision.goal_key or None,
        GROUNDING_KEY: None if grounding is None else grounding_to_wire(grounding),
    }


def decision_from_wire(
    metadata: Mapping[str, Any],
    *,
    convert_eligible: bool | None,
    eligibility_reason: str,
) -> ThoughtDecision:
    """The decision of a stored thought: its metadata's keys and its
    eligibility columns. Raises ``MalformedGoal`` for an ``extractedGoal``
    that cannot be read; an absent or null one is no goal."""
    key = metadata.get(GOAL_KEY_KEY)
    return ThoughtDecision(
        goal=_goal_from_wire(metadata.get(GOAL_KEY)),
        goal_key=key if isinstance(key, str) and key else None,
        grounding=_grounding_from_wire(metadata.get(GROUNDING_KEY)),
        convert_eligible=convert_eligible,
        eligibility_reason=eligibility_reason,
    )


def _goal_from_wire(value: object) -> Goal | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise MalformedGoal("extractedGoal is not an object")
    action, target = value.get("action"), value.get("target")
    if not isinstance(action, str) or not action or not isinstance(target, str):
        raise MalformedGoal("extractedGoal has no action or target")
    target_id, amount, raw = (
        value.get("targetId"),
        value.get("amount"),
        value.get("raw"),
    )
    return Goal(
        action=action,
        target=target,
        target_id=target_id if isinstance(target_id, str) else None,
        amount=amount
        if isinstance(amount, int) and not isinstance(amount, bool)
        else None,
        raw=raw if isinstance(raw, str) else "",
    )


def _grounding_from_wire(value: object) -> GroundingResult | None:
    if not isinstance(value, Mapping):
        return None
    missing = value.get("missing")
    reason = value.get("reason")
    category = value.get("category")
    return GroundingResult(
        passed=value.get("pass") is True,
        reason=reason if isinstance(reason, str) else "",
        category=_CATEGORIES.get(category) if isinstance(category, str) else None,
        missing=tuple(m for m in missing if isinstance(m, str))
        if isinstance(missing, list)
        else (),
    )
