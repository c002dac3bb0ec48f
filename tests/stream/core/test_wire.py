"""camelCase wire shapes of pipeline results."""

from __future__ import annotations

import json

from stream.core.adapters import SAMPLERS, ScriptedAdapter
from stream.core.goals import accepted_actions_text
from stream.core.grounding import ground
from stream.core.pipeline import run_pipeline
from stream.core.sanitizer import sanitize
from stream.core.types import (
    EligibilityDecision,
    Generation,
    GroundingCategory,
    GroundingResult,
    PromptProfile,
    SituationFacts,
)
from stream.core.wire import (
    eligibility_to_wire,
    generation_to_wire,
    grounding_to_wire,
    pipeline_result_to_wire,
    rendered_frame_to_wire,
    sampler_to_wire,
    sanitize_result_to_wire,
)


def test_sanitize_result_wire_has_exactly_the_documented_keys() -> None:
    wire = sanitize_result_to_wire(
        sanitize("Iron! [GOAL: dig iron_ore id=ore7 amount=3]\nINTENT: mine")
    )
    assert wire == {
        "text": "Iron!",
        "goal": {
            "action": "mine",
            "target": "iron_ore",
            "targetId": "ore7",
            "amount": 3,
            "raw": "[GOAL: dig iron_ore id=ore7 amount=3]",
        },
        "goalFailReason": None,
        "goalFailDetail": None,
        "goalTagCount": 1,
        "goalKey": "mine:iron_ore",
        "intent": "mine",
        "intentParse": "final_line",
        "flags": ["goal_tag", "intent"],
        "rawGoalTag": None,
        "hadCodeContent": False,
        "usableContent": True,
    }
    assert json.loads(json.dumps(wire)) == wire


def test_sanitize_result_wire_without_goal() -> None:
    assert sanitize_result_to_wire(sanitize("Hm, odd. [GOAL: dance]")) == {
        "text": "Hm, odd.",
        "goal": None,
        "goalFailReason": "unknown_action",
        "goalFailDetail": "unknown goal action 'dance'; accepted actions: "
        + accepted_actions_text(),
        "goalTagCount": 1,
        "goalKey": None,
        "intent": None,
        "intentParse": None,
        "flags": ["trailing_garbage"],
        "rawGoalTag": "[GOAL: dance]",
        "hadCodeContent": False,
        "usableContent": True,
    }


def test_targetless_goal_key_is_null_not_empty() -> None:
    assert sanitize_result_to_wire(sanitize("[GOAL: pause]"))["goalKey"] is None


def test_grounding_wire(full_facts: SituationFacts) -> None:
    assert grounding_to_wire(
        GroundingResult(False, "missing_item", GroundingCategory.MISSING_ITEM, ("x",))
    ) == {
        "pass": False,
        "reason": "missing_item",
        "category": "missing_item",
        "missing": ["x"],
    }
    assert grounding_to_wire(ground(None, facts=full_facts)) == {
        "pass": False,
        "reason": "no_goal",
        "category": None,
        "missing": [],
    }


def test_small_shapes() -> None:
    assert eligibility_to_wire(EligibilityDecision(True, "eligible")) == {
        "convertEligible": True,
        "reason": "eligible",
    }
    assert generation_to_wire(Generation("x", 1.5)) == {"text": "x", "latencyMs": 1.5}
    assert sampler_to_wire(SAMPLERS["creative"]) == {
        "name": "creative",
        "temperature": 0.9,
        "topP": 1.0,
        "maxTokens": 768,
    }


def test_pipeline_result_wire(full_facts: SituationFacts) -> None:
    adapter = ScriptedAdapter.from_lines(
        ['{"scenario_id": "s", "output": "[GOAL: mine diamond]", "latency_ms": 3}']
    )
    result = run_pipeline(
        full_facts,
        profile=PromptProfile.MINIMAL,
        adapter=adapter,
        sampler=SAMPLERS["standard"],
        seed=1,
        clock=lambda: 0.0,
        scenario_id="s",
    )
    wire = pipeline_result_to_wire(result)
    assert sorted(wire) == [
        "eligibility", "extractedGoal", "frame", "generation", "grounding",
        "prompt", "routable", "sanitized",
    ]  # fmt: skip
    assert wire["frame"] == rendered_frame_to_wire(result.frame)
    assert wire["frame"]["factualOnly"] is True
    assert sorted(wire["frame"]) == [
        "deltaCount", "digest", "factCount", "factualOnly", "memoryCount",
        "profile", "text",
    ]  # fmt: skip
    assert wire["extractedGoal"]["target"] == "diamond"
    assert wire["grounding"]["category"] == "missing_item"
    assert wire["eligibility"] == {
        "convertEligible": False,
        "reason": "grounding_fail:missing_item",
    }
    assert wire["generation"] == {"text": "[GOAL: mine diamond]", "latencyMs": 3.0}
    assert json.loads(json.dumps(wire)) == wire
