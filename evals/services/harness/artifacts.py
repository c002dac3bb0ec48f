"""The scenario artifact (EV-C4) on disk and as the lifecycle records it.

The record itself is ``evals.core.scenario_artifact.ScenarioArtifact``
(built by ``evals.core.outcomes.scenario_artifact_of``); ``artifact_bytes``
encodes its wire document once, ``write_artifact`` puts those bytes
under the run's bundle (in the directories ``bundle_dirs_create`` made) and
``case_record`` hands the same text to the recorder, so the file and the
case row hold one encoding of the document;
``case_artifact`` reads a stored case back into the record and
``case_outcome`` into its ``ScenarioOutcome``.
"""

from __future__ import annotations

import os
from pathlib import Path

from evals.core.bundles import scenario_artifact_path
from evals.core.files import json_bytes, spread_subdirectories, write_bytes_atomic
from evals.core.outcomes import outcome_of
from evals.core.scenario_artifact import ScenarioArtifact
from evals.core.suite_types import (
    Scenario,
    ScenarioOutcome,
)
from evals.models import CaseResult, Run
from evals.services.runs.executors import CaseRecord


def artifact_bytes(artifact: ScenarioArtifact) -> bytes:
    """The artifact as its file holds it (sorted, indented UTF-8 JSON)."""
    return json_bytes(artifact.to_wire())


def bundle_dirs_create(run: Run) -> None:
    """Make the run's bundle directories before its first file is written.

    The directory that holds the runs of a suite and profile is marked
    ``spread_subdirectories`` first, so the filesystem places each run's
    directory, and so its scenario files, where it has room rather than
    beside the runs before it; where the filesystem has no such mark,
    nothing else changes.
    """
    run_dir = Path(run.artifacts_dir)
    os.makedirs(run_dir.parent, exist_ok=True)
    spread_subdirectories(run_dir.parent)
    os.makedirs(run_dir / "scenarios", exist_ok=True)


def write_artifact(
    run: Run, scenario: Scenario, encoded: bytes, case_id: str | None = None
) -> None:
    """Write ``encoded`` (``artifact_bytes``) as the case's file (``case_id``:
    an epoch ``<scenario>#<n>`` of a run with repeats; the scenario's id by
    default).

    Not fsynced one by one: the case row committed beside it holds the same
    document, and the run's finish syncs them all before summary.json."""
    name = case_id or scenario.scenario_id
    write_bytes_atomic(
        os.path.join(run.artifacts_dir, scenario_artifact_path(name)),
        encoded,
        durable=False,
    )


def case_record(
    scenario: Scenario,
    artifact: ScenarioArtifact,
    encoded: bytes,
    *,
    case_id: str | None = None,
) -> CaseRecord:
    """The stored case of a scenario whose artifact is written; its document
    is stored as the file's text. ``case_id`` as for ``write_artifact``."""
    return CaseRecord(
        case_id=case_id or scenario.scenario_id,
        passed=artifact.passed,
        error=artifact.error or "",
        latency_ms=artifact.latency_ms,
        stimulus_kind=scenario.stimulus.kind.value,
        affordance=scenario.stimulus.action_affordance.value,
        tags=tuple(scenario.tags),
        details=artifact.to_wire(),
        details_json=encoded.decode("utf-8"),
    )


def case_artifact(case: CaseResult) -> ScenarioArtifact:
    """The scenario artifact a stored case holds."""
    return ScenarioArtifact.from_wire(case.details or {})


def case_outcome(
    case: CaseResult, artifact: ScenarioArtifact | None = None
) -> ScenarioOutcome:
    """The outcome a stored scenario case stands for (``artifact``: the
    case's artifact where the caller has read it already)."""
    return outcome_of(
        case_id=case.case_id,
        affordance=case.affordance,
        stimulus_kind=case.stimulus_kind,
        tags=case.tags,
        artifact=artifact if artifact is not None else case_artifact(case),
    )
