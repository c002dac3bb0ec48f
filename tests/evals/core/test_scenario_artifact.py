"""The scenario artifact as one typed record: its wire document, reading it
back, and the documents an older harness stored."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from evals.core.files import json_bytes
from evals.core.outcomes import RunContext, ScenarioRun, scenario_artifact_of
from evals.core.scenario_artifact import (
    GroundingRecord,
    ModelConfig,
    PlanningRecord,
    ScenarioArtifact,
    Violation,
    is_scenario_artifact,
)
from evals.core.suites import load_suite
from stream.core.adapters import SAMPLERS, ScriptedAdapter
from stream.core.types import PromptProfile
from tests.evals.core.test_bundles import ARTIFACT

UPSTREAM = Path(__file__).parent / "upstream"
NOW = datetime(2026, 2, 3, 12, 0, tzinfo=UTC)

PLANNING = PlanningRecord(
    agent="eval-agent",
    thought_id=41,
    convert_eligible=True,
    eligibility_reason="eligible",
    fetched=1,
    converted=1,
    skipped=0,
    errors=0,
    acked=1,
    task_ids=(7, 9),
)


def _bytes_round_trip(artifact: ScenarioArtifact) -> ScenarioArtifact:
    return ScenarioArtifact.from_wire(json.loads(json_bytes(artifact.to_wire())))


def test_an_end_to_end_artifact_reads_back_as_the_same_record() -> None:
    artifact = replace(
        ARTIFACT,
        mode="end_to_end",
        planning=PLANNING,
        tasks_created=2,
        grounding=GroundingRecord(
            passed=False,
            reason="fabricated_target",
            category="fabricated_target",
            violations=(Violation(kind="fabricated_target", trigger="diamond"),),
        ),
        claims={"version": 1, "checked": 2, "pass": False, "ungrounded": []},
        sanitizer_flags=("stripped_markup",),
    )

    assert _bytes_round_trip(artifact) == artifact
    wire = artifact.to_wire()
    assert wire["planning"]["taskIds"] == [7, 9]
    assert wire["planning"]["thoughtId"] == 41
    assert wire["grounding"]["violations"] == [
        {"type": "fabricated_target", "trigger": "diamond"}
    ]


def test_an_older_document_without_the_later_keys_reads_with_their_defaults() -> None:
    wire = ARTIFACT.to_wire()
    for key in ("claims", "availableFacts", "sanitizerFlags", "planning", "tags"):
        del wire[key]
    del wire["grounding"]["referencedFacts"]
    del wire["grounding"]["violations"]

    read = ScenarioArtifact.from_wire(wire)

    assert (read.claims, read.available_facts, read.sanitizer_flags) == (None, 0, ())
    assert (read.planning, read.tags, read.grounding.referenced_facts) == (
        None,
        (),
        (),
    )
    assert read.grounding.passed is True
    assert read.thought == "Cook the beef."


def test_only_documents_with_a_scenario_are_scenario_artifacts() -> None:
    assert is_scenario_artifact(ARTIFACT.to_wire())
    assert not is_scenario_artifact({"caseId": "a", "passed": True})
    assert not is_scenario_artifact({})
    assert not is_scenario_artifact(None)


def test_model_config_reads_back_from_its_wire_document() -> None:
    model = ModelConfig("openai:qwen", "openai", "standard", 3, {"temperature": 0.7})

    assert ModelConfig.from_wire(model.to_wire()) == model


def test_building_an_artifact_refuses_an_unknown_mode(tmp_path: Path) -> None:
    suite = load_suite(UPSTREAM / "idle-v1.jsonl")
    context = RunContext(
        suite=suite,
        profile=PromptProfile.BALANCED,
        mode="both",
        adapter=ScriptedAdapter.from_path(UPSTREAM / "idle-v1.mixed.script.jsonl"),
        sampler=SAMPLERS["standard"],
        model=ModelConfig("scripted:mixed", "scripted", "standard", 7),
        seed=7,
        artifacts_dir=tmp_path,
    )
    ran = ScenarioRun(None, None, None, "boom", NOW, NOW)

    with pytest.raises(ValueError, match="mode"):
        scenario_artifact_of(
            "r1", context, suite.scenarios[0], ran, planning=None, claims=None
        )
