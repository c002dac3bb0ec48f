"""Scenario outcomes of the harness: the EV-C4 scenario artifact of one
scenario through the pipeline, and the ``ScenarioOutcome`` a stored artifact
stands for (what metrics and the verdict are computed from).

Pure: no Django; times come in on ``ScenarioRun``. ``scenario_document``
and ``outcome_of`` agree: the outcome read back from a document is the one
the document was built from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from evals.core.bundles import ModelConfig, scenario_artifact
from evals.core.metrics import available_fact_count, evaluate_scenario
from evals.core.suite_types import (
    ActionAffordance,
    LoadedSuite,
    Scenario,
    ScenarioOutcome,
    StimulusKind,
)
from stream.core.adapters import ModelAdapter
from stream.core.types import (
    GoalFailReason,
    GroundingCategory,
    PipelineResult,
    PromptProfile,
    RenderedFrame,
    SamplerProfile,
    SituationFacts,
)
from stream.core.wire import goal_to_wire


@dataclass(frozen=True, slots=True)
class RunContext:
    """What every scenario of a run shares, rebuilt by each chunk."""

    suite: LoadedSuite
    profile: PromptProfile
    mode: str
    adapter: ModelAdapter
    sampler: SamplerProfile
    model: ModelConfig
    seed: int
    artifacts_dir: Path


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    """One scenario through the pipeline, before anything is recorded."""

    result: PipelineResult | None
    facts: SituationFacts | None
    frame: RenderedFrame | None
    error: str | None
    started: datetime
    completed: datetime


def scenario_document(
    run_id: str,
    context: RunContext,
    scenario: Scenario,
    ran: ScenarioRun,
    *,
    planning: dict[str, Any] | None,
) -> dict[str, Any]:
    result, error, frame = ran.result, ran.error, ran.frame
    goal = result.sanitized.goal if result else None
    grounding = result.grounding if result else None
    tasks_created = len(planning["taskIds"]) if planning is not None else None
    category = (
        grounding.category.value
        if grounding is not None
        and goal is not None
        and not grounding.passed
        and grounding.category
        else None
    )
    referenced = grounding.referenced if grounding is not None and goal else ()
    available = available_fact_count(ran.facts) if ran.facts and result else 0
    outcome = ScenarioOutcome(
        scenario_id=scenario.scenario_id,
        affordance=scenario.stimulus.action_affordance,
        stimulus_kind=scenario.stimulus.kind,
        tags=scenario.tags,
        error=error,
        output_text=result.sanitized.text if result else "",
        goal_emitted=goal_emitted(
            goal is not None,
            result.sanitized.goal_fail_reason.value
            if result and result.sanitized.goal_fail_reason
            else None,
        ),
        goal_extracted=goal is not None,
        grounding_passed=grounding.passed if grounding and goal else None,
        hallucination_category=_hallucination(category),
        convert_eligible=bool(result and result.eligibility.convert_eligible),
        latency_ms=(result.generation.latency_ms or 0.0) if result else 0.0,
        tasks_created=tasks_created,
        contradiction=category == CONTRADICTION,
        referenced_facts=len(referenced),
        available_facts=available,
    )
    verdict = evaluate_scenario(outcome)
    document = scenario_artifact(
        run_id=run_id,
        suite_id=context.suite.suite_id,
        scenario_id=scenario.scenario_id,
        scenario_version=scenario.version,
        scenario_sha256=scenario.scenario_sha256,
        stimulus_kind=scenario.stimulus.kind.value,
        action_affordance=scenario.stimulus.action_affordance.value,
        profile=context.profile.value,
        mode=context.mode,
        frame_text=frame.text if frame else "",
        frame_facts=frame.fact_count if frame else 0,
        frame_memories=frame.memory_count if frame else 0,
        frame_deltas=frame.delta_count if frame else 0,
        model=context.model,
        raw_output=result.generation.text if result else None,
        thought_text=result.sanitized.text if result else None,
        extracted_goal=goal_to_wire(goal),
        goal_fail_reason=(
            result.sanitized.goal_fail_reason.value
            if result and result.sanitized.goal_fail_reason
            else None
        ),
        grounding_passed=outcome.grounding_passed,
        grounding_reason=grounding.reason if grounding else None,
        hallucination_category=category,
        convert_eligible=outcome.convert_eligible,
        convert_eligible_reason=(result.eligibility.reason if result else "error"),
        started_at=ran.started.isoformat(),
        completed_at=ran.completed.isoformat(),
        latency_ms=outcome.latency_ms,
        passed=verdict.passed,
        fail_reasons=verdict.fail_reasons,
        tasks_created=tasks_created,
        error=error,
    )
    # Beyond EV-C4's list: where the scenario sits in the suite (metrics are
    # order-sensitive), what routing and planning did.
    document["grounding"]["referencedFacts"] = list(referenced)
    document["grounding"]["violations"] = [
        {"type": kind.value, "trigger": trigger}
        for kind, trigger in (grounding.violations if grounding and goal else ())
    ]
    document["availableFacts"] = available
    document["hallucination"] = outcome.hallucination_category
    document["suiteLine"] = scenario.line
    document["tags"] = list(scenario.tags)
    document["routable"] = bool(result and result.routable)
    document["sanitizerFlags"] = list(result.sanitized.flags) if result else []
    document["planning"] = planning
    return document


def goal_emitted(extracted: bool, fail_reason: str | None) -> bool:
    # A tag that failed extraction was still emitted; only "no_tag" means none.
    return extracted or (
        fail_reason is not None and fail_reason != GoalFailReason.NO_TAG.value
    )


def outcome_of(
    *,
    case_id: str,
    affordance: str,
    stimulus_kind: str,
    tags: Sequence[str],
    details: Mapping[str, Any],
) -> ScenarioOutcome:
    """The outcome a stored scenario case stands for (its artifact's fields)."""
    grounding = details.get("grounding") or {}
    category = grounding.get("category") if grounding.get("pass") is False else None
    return ScenarioOutcome(
        scenario_id=case_id,
        affordance=ActionAffordance(affordance),
        stimulus_kind=StimulusKind(stimulus_kind),
        tags=tuple(tags),
        error=details.get("error"),
        output_text=details.get("thought") or "",
        goal_emitted=goal_emitted(
            details.get("extractedGoal") is not None, details.get("goalFailReason")
        ),
        goal_extracted=details.get("extractedGoal") is not None,
        grounding_passed=grounding.get("pass"),
        hallucination_category=_hallucination(category),
        convert_eligible=bool(details.get("convertEligible")),
        latency_ms=float(details.get("latencyMs") or 0.0),
        tasks_created=details.get("tasksCreated"),
        contradiction=category == CONTRADICTION,
        referenced_facts=len(grounding.get("referencedFacts") or ()),
        available_facts=int(details.get("availableFacts") or 0),
    )


CONTRADICTION = GroundingCategory.CONTRADICTION.value


def _hallucination(category: str | None) -> str | None:
    """A grounding category that fabricated something (not a contradiction)."""
    return None if category in (None, CONTRADICTION) else category


def model_config_of(config: Mapping[str, Any]) -> ModelConfig:
    """The model a harness run's config (``Run.config``) names."""
    return ModelConfig(
        model_id=config["modelId"],
        adapter=config["model"],
        sampler=config["sampler"],
        seed=config["seed"],
        sampler_params=config.get("samplerParams"),
    )
