"""Reads the search index takes from the eval runs: each scenario result's
model output with its run, suite and flags, in id order after a watermark.
Read-only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from evals.core.scenario_artifact import ScenarioArtifact, is_scenario_artifact
from evals.models import CaseResult


@dataclass(frozen=True, slots=True)
class CaseOutput:
    pk: int
    run_id: str
    case_id: str
    suite_id: str
    passed: bool
    output: str
    eligible: bool | None
    # failed, ungrounded, hallucination:<category>, sanitizer flags
    flags: tuple[str, ...]
    started_at: datetime


def _flags(passed: bool, artifact: ScenarioArtifact | None) -> tuple[str, ...]:
    flags = [] if passed else ["failed"]
    if artifact is not None:
        if artifact.grounding.passed is False:
            flags.append("ungrounded")
        if artifact.hallucination:
            flags.append("hallucination")
        flags.extend(artifact.sanitizer_flags)
    return tuple(flags)


def case_outputs_after(after_id: int, limit: int) -> list[CaseOutput]:
    """Up to ``limit`` scenario results with an id above ``after_id``, in id
    order; a result with no scenario artifact has its error as its output."""
    cases = (
        CaseResult.objects.filter(pk__gt=after_id)
        .order_by("pk")
        .select_related("run__benchmark")
        .only(
            "pk",
            "case_id",
            "passed",
            "error",
            "details",
            "run__run_id",
            "run__started_at",
            "run__benchmark__benchmark_id",
        )[:limit]
    )
    found: list[CaseOutput] = []
    for case in cases:
        artifact = None
        if is_scenario_artifact(case.details):
            try:
                artifact = ScenarioArtifact.from_wire(case.details)
            except (KeyError, TypeError, ValueError):
                artifact = None
        output = (artifact.raw_output or "") if artifact is not None else ""
        found.append(
            CaseOutput(
                pk=case.pk,
                run_id=case.run.run_id,
                case_id=case.case_id,
                suite_id=case.run.benchmark.benchmark_id,
                passed=case.passed,
                output=output or case.error,
                eligible=artifact.convert_eligible if artifact is not None else None,
                flags=_flags(case.passed, artifact),
                started_at=case.run.started_at,
            )
        )
    return found
