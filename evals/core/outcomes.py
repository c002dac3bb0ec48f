"""Scenario outcomes of the harness: the EV-C4 scenario artifact of one
scenario through the pipeline, and the ``ScenarioOutcome`` a stored artifact
stands for (what metrics and the verdict are computed from).

Pure: no Django; times come in on ``ScenarioRun``. ``scenario_artifact_of``
and ``outcome_of`` agree: the outcome read back from an artifact is the one
the artifact was built from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from evals.core.bundles import check_mode
from evals.core.metrics import available_fact_count, evaluate_scenario
from evals.core.scenario_artifact import (
    FrameRecord,
    GroundingRecord,
    ModelConfig,
    PlanningRecord,
    ScenarioArtifact,
    ScenarioRef,
    Violation,
)
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


def scenario_artifact_of(
    run_id: str,
    context: RunContext,
    scenario: Scenario,
    ran: ScenarioRun,
    *,
    planning: PlanningRecord | None,
    claims: Mapping[str, Any] | None,
) -> ScenarioArtifact:
    """The scenario's artifact, built once from what the pipeline did, what
    planning did (end-to-end only) and the free-text claims checked."""
    check_mode(context.mode)
    result, error, frame = ran.result, ran.error, ran.frame
    goal = result.sanitized.goal if result else None
    grounding = result.grounding if result else None
    goal_fail_reason = (
        result.sanitized.goal_fail_reason.value
        if result and result.sanitized.goal_fail_reason
        else None
    )
    tasks_created = len(planning.task_ids) if planning is not None else None
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
        goal_emitted=goal_emitted(goal is not None, goal_fail_reason),
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
    return ScenarioArtifact(
        run_id=run_id,
        suite_id=context.suite.suite_id,
        profile=context.profile.value,
        mode=context.mode,
        scenario=ScenarioRef(
            scenario_id=scenario.scenario_id,
            version=scenario.version,
            sha256=scenario.scenario_sha256,
            stimulus_kind=scenario.stimulus.kind.value,
            action_affordance=scenario.stimulus.action_affordance.value,
        ),
        frame=FrameRecord(
            text=frame.text if frame else "",
            facts=frame.fact_count if frame else 0,
            memories=frame.memory_count if frame else 0,
            deltas=frame.delta_count if frame else 0,
        ),
        model=context.model,
        raw_output=result.generation.text if result else None,
        thought=result.sanitized.text if result else None,
        extracted_goal=goal_to_wire(goal),
        goal_fail_reason=goal_fail_reason,
        grounding=GroundingRecord(
            passed=outcome.grounding_passed,
            reason=grounding.reason if grounding else None,
            category=category,
            referenced_facts=tuple(referenced),
            violations=tuple(
                Violation(kind=kind.value, trigger=trigger)
                for kind, trigger in (
                    grounding.violations if grounding and goal else ()
                )
            ),
        ),
        convert_eligible=outcome.convert_eligible,
        convert_eligible_reason=result.eligibility.reason if result else "error",
        tasks_created=tasks_created,
        started_at=ran.started.isoformat(),
        completed_at=ran.completed.isoformat(),
        latency_ms=outcome.latency_ms,
        error=error,
        passed=verdict.passed,
        fail_reasons=tuple(sorted(verdict.fail_reasons)),
        # Beyond EV-C4's list: where the scenario sits in the suite (metrics
        # are order-sensitive), what routing and planning did.
        available_facts=available,
        hallucination=outcome.hallucination_category,
        suite_line=scenario.line,
        tags=tuple(scenario.tags),
        routable=bool(result and result.routable),
        sanitizer_flags=tuple(result.sanitized.flags) if result else (),
        planning=planning,
        claims=claims,
    )


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
    artifact: ScenarioArtifact,
) -> ScenarioOutcome:
    """The outcome a stored scenario case stands for (its artifact's fields)."""
    grounding = artifact.grounding
    category = grounding.category if grounding.passed is False else None
    return ScenarioOutcome(
        scenario_id=case_id,
        affordance=ActionAffordance(affordance),
        stimulus_kind=StimulusKind(stimulus_kind),
        tags=tuple(tags),
        error=artifact.error,
        output_text=artifact.thought or "",
        goal_emitted=goal_emitted(
            artifact.extracted_goal is not None, artifact.goal_fail_reason
        ),
        goal_extracted=artifact.extracted_goal is not None,
        grounding_passed=grounding.passed,
        hallucination_category=_hallucination(category),
        convert_eligible=artifact.convert_eligible,
        latency_ms=float(artifact.latency_ms),
        tasks_created=artifact.tasks_created,
        contradiction=category == CONTRADICTION,
        referenced_facts=len(grounding.referenced_facts),
        available_facts=artifact.available_facts,
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
