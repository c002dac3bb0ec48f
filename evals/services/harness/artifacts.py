"""The scenario artifact (EV-C4) on disk and as the lifecycle records it.

The document itself is ``evals.core.outcomes.scenario_document``'s;
``write_artifact`` puts it under the run's bundle, ``case_record`` hands it
to the recorder, ``case_outcome`` reads a stored case back into its
``ScenarioOutcome``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.core.bundles import (
    scenario_artifact_path,
    write_json_atomic,
)
from evals.core.outcomes import outcome_of
from evals.core.suite_types import (
    Scenario,
    ScenarioOutcome,
)
from evals.models import CaseResult, Run
from evals.services.runs.executors import CaseRecord


def write_artifact(run: Run, scenario: Scenario, artifact: dict[str, Any]) -> None:
    # Not fsynced one by one: the case row committed beside it holds the same
    # document, and the run's finish syncs them all before summary.json.
    write_json_atomic(
        Path(run.artifacts_dir) / scenario_artifact_path(scenario.scenario_id),
        artifact,
        durable=False,
    )


def case_record(scenario: Scenario, artifact: dict[str, Any]) -> CaseRecord:
    """The stored case of a scenario whose artifact is written."""
    return CaseRecord(
        case_id=scenario.scenario_id,
        passed=artifact["pass"],
        error=artifact["error"] or "",
        latency_ms=artifact["latencyMs"],
        stimulus_kind=scenario.stimulus.kind.value,
        affordance=scenario.stimulus.action_affordance.value,
        tags=tuple(scenario.tags),
        details=artifact,
    )


def case_outcome(case: CaseResult) -> ScenarioOutcome:
    """The outcome a stored scenario case stands for."""
    return outcome_of(
        case_id=case.case_id,
        affordance=case.affordance,
        stimulus_kind=case.stimulus_kind,
        tags=case.tags,
        details=case.details,
    )
