"""convertEligible (PA-D2, PA-D3, KA-A8, the agency contract §4.3) and its reasons."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stream.core.eligibility import decide_eligibility
from stream.core.frames import facts_from_wire
from stream.core.goals import ROUTABLE_ACTIONS
from stream.core.grounding import ground
from stream.core.pipeline import evaluate_output
from stream.core.sanitizer import sanitize
from stream.core.types import (
    EligibilityDecision,
    GroundingCategory,
    GroundingResult,
    SituationFacts,
)

GROUNDED = GroundingResult(True, "grounded", None, ())


def test_pa_d2_routable_grounded_goal_is_eligible(full_facts: SituationFacts) -> None:
    sanitized = sanitize("Logs here. [GOAL: collect oak_log 4]")
    decision = decide_eligibility(sanitized, ground(sanitized.goal, facts=full_facts))
    assert decision == EligibilityDecision(True, "eligible")


def test_pa_d3_no_goal_is_not_eligible(full_facts: SituationFacts) -> None:
    sanitized = sanitize("The sun is setting over the birch trees.")
    decision = decide_eligibility(sanitized, ground(None, facts=full_facts))
    assert decision == EligibilityDecision(False, "no_goal")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[GOAL: dance]", "goal_fail:unknown_action"),
        ("[GOAL: collect]", "goal_fail:no_target"),
        ("[GOAL: ]", "goal_fail:empty_inner"),
        ("[GOAL: mine " + "x" * 120 + "]", "goal_fail:tag_too_long"),
    ],
)
def test_failed_tag_reason(full_facts: SituationFacts, text: str, reason: str) -> None:
    _, _, decision = evaluate_output(text, facts=full_facts)
    assert decision == EligibilityDecision(False, reason)


@pytest.mark.parametrize(
    "text", ["[GOAL: check zombie]", "[GOAL: pause]", "[GOAL: continue oak_log]"]
)
def test_non_routable_action_is_not_eligible(
    full_facts: SituationFacts, text: str
) -> None:
    _, _, decision = evaluate_output(text, facts=full_facts)
    assert decision == EligibilityDecision(False, "not_routable")


def test_grounding_failure_reason_names_the_category(
    full_facts: SituationFacts,
) -> None:
    _, grounding, decision = evaluate_output("[GOAL: mine diamond]", facts=full_facts)
    assert grounding.category is GroundingCategory.MISSING_ITEM
    assert decision == EligibilityDecision(False, "grounding_fail:missing_item")


def test_ungrounded_goal_without_category_uses_the_reason() -> None:
    sanitized = sanitize("[GOAL: mine stone]")
    decision = decide_eligibility(
        sanitized, GroundingResult(False, "no_frame", None, ())
    )
    assert decision == EligibilityDecision(False, "grounding_fail:no_frame")


def test_intent_alone_never_makes_a_thought_eligible(
    full_facts: SituationFacts,
) -> None:
    _, _, decision = evaluate_output("Wood nearby.\nINTENT: gather", facts=full_facts)
    assert decision == EligibilityDecision(False, "no_goal")


ZOMBIE_FACTS = facts_from_wire(
    {
        "facts": {
            "bot": {
                "position": {"x": 0, "y": 0, "z": 0},
                "health": 20,
                "hunger": 20,
                "inventorySummary": [{"item": "oak_log", "count": 1}],
                "timeOfDay": "day",
            },
            "world": {
                "biome": "plains",
                "nearbyEntities": [{"kind": "zombie", "count": 1, "distanceMin": 3}],
            },
        }
    }
)
TAGGY = st.lists(
    st.sampled_from(
        ["[GOAL: ", "[goal:", "]", " ", "mine", "collect", "check", "oak_log",
         "diamond", "zombie", "creeper", "plains", "desert", "3", "\n", "INTENT: mine"]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@given(TAGGY)
def test_ka_a8_eligible_only_with_goal_routable_and_grounding_pass(text: str) -> None:
    sanitized, grounding, decision = evaluate_output(text, facts=ZOMBIE_FACTS)
    if decision.convert_eligible:
        assert decision.reason == "eligible"
        assert sanitized.goal is not None
        assert sanitized.goal.action in ROUTABLE_ACTIONS
        assert grounding.passed
    else:
        assert decision.reason != "eligible"
        assert decision.reason.split(":")[0] in {
            "no_goal", "goal_fail", "not_routable", "grounding_fail",
        }  # fmt: skip
