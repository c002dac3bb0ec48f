"""camelCase wire shapes of the thinking pipeline's results.

Decides the JSON keys that leave the core (HTTP responses, ``manage.py
sanitize`` output, eval artifacts). Python stays snake_case; these functions
are the one place that maps it. Invariants: output is plain JSON (str, int,
float, bool, None, list, dict); keys are exactly the documented ones; enum
values are their strings; an empty goal key is ``null``, never ``""``.
"""

from __future__ import annotations

from typing import Any

from stream.core.goals import goal_fail_detail
from stream.core.types import (
    EligibilityDecision,
    Generation,
    Goal,
    GroundingResult,
    PipelineResult,
    RenderedFrame,
    SamplerProfile,
    SanitizeResult,
)


def goal_to_wire(goal: Goal | None) -> dict[str, Any] | None:
    """``{action, target, targetId, amount, raw}`` or ``None``."""
    if goal is None:
        return None
    return {
        "action": goal.action,
        "target": goal.target,
        "targetId": goal.target_id,
        "amount": goal.amount,
        "raw": goal.raw,
    }


def sanitize_result_to_wire(result: SanitizeResult) -> dict[str, Any]:
    """The ``manage.py sanitize`` / thought-metadata shape of a result."""
    return {
        "text": result.text,
        "goal": goal_to_wire(result.goal),
        "goalFailReason": None
        if result.goal_fail_reason is None
        else result.goal_fail_reason.value,
        "goalFailDetail": goal_fail_detail(
            result.goal_fail_reason, result.raw_goal_tag
        ),
        "goalTagCount": result.goal_tag_count,
        "goalKey": result.goal_key or None,
        "intent": result.intent,
        "intentParse": None
        if result.intent_parse is None
        else result.intent_parse.value,
        "flags": list(result.flags),
        "rawGoalTag": result.raw_goal_tag,
        "hadCodeContent": result.had_code_content,
        "usableContent": result.is_usable,
    }


def rendered_frame_to_wire(frame: RenderedFrame) -> dict[str, Any]:
    return {
        "text": frame.text,
        "profile": frame.profile.value,
        "factCount": frame.fact_count,
        "memoryCount": frame.memory_count,
        "deltaCount": frame.delta_count,
        "factualOnly": frame.factual_only,
        "digest": frame.digest,
    }


def grounding_to_wire(grounding: GroundingResult) -> dict[str, Any]:
    """``{pass, reason, category, missing}`` (``pass`` as the stream contract spells
    it)."""
    return {
        "pass": grounding.passed,
        "reason": grounding.reason,
        "category": None if grounding.category is None else grounding.category.value,
        "missing": list(grounding.missing),
    }


def eligibility_to_wire(decision: EligibilityDecision) -> dict[str, Any]:
    return {"convertEligible": decision.convert_eligible, "reason": decision.reason}


def generation_to_wire(generation: Generation) -> dict[str, Any]:
    return {"text": generation.text, "latencyMs": generation.latency_ms}


def sampler_to_wire(sampler: SamplerProfile) -> dict[str, Any]:
    return {
        "name": sampler.name,
        "temperature": sampler.temperature,
        "topP": sampler.top_p,
        "maxTokens": sampler.max_tokens,
    }


def pipeline_result_to_wire(result: PipelineResult) -> dict[str, Any]:
    """Everything one pipeline pass decided, for artifacts and APIs."""
    return {
        "frame": rendered_frame_to_wire(result.frame),
        "prompt": result.prompt,
        "generation": generation_to_wire(result.generation),
        "sanitized": sanitize_result_to_wire(result.sanitized),
        "extractedGoal": goal_to_wire(result.sanitized.goal),
        "grounding": grounding_to_wire(result.grounding),
        "eligibility": eligibility_to_wire(result.eligibility),
        "routable": result.routable,
    }
