"""Metrics and per-scenario results equal the reference harness's (EV-C5).

``upstream/idle-v1.mixed.script.jsonl`` gives one output per scenario of the
upstream idle suite: calm text, grounded goals, fabricated references, a
contradiction, a goal planning cannot route, failed tags, repeats (case and
spacing differ). ``idle-v1.mixed.expected.json`` is what the reference
harness (its sanitizer, grounder and metrics collector) computes for them.
Our pipeline's scenario artifacts, read back as outcomes, must give the same.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from evals.core.files import json_bytes
from evals.core.metrics import compute_metrics, evaluate_scenario
from evals.core.outcomes import (
    RunContext,
    ScenarioRun,
    outcome_of,
    scenario_artifact_of,
)
from evals.core.scenario_artifact import ModelConfig, ScenarioArtifact
from evals.core.suite_types import ActionAffordance, ScenarioOutcome
from evals.core.suites import load_suite
from stream.core.adapters import SAMPLERS, ScriptedAdapter
from stream.core.frames import facts_from_wire
from stream.core.pipeline import run_pipeline
from stream.core.types import PromptProfile

UPSTREAM = Path(__file__).parent / "upstream"
NOW = datetime(2026, 2, 3, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (UPSTREAM / "idle-v1.mixed.expected.json").read_text("utf-8")
    )
    return data


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> list[ScenarioArtifact]:
    suite = load_suite(UPSTREAM / "idle-v1.jsonl")
    adapter = ScriptedAdapter.from_path(UPSTREAM / "idle-v1.mixed.script.jsonl")
    context = RunContext(
        suite=suite,
        profile=PromptProfile.BALANCED,
        mode="thought_only",
        adapter=adapter,
        sampler=SAMPLERS["standard"],
        model=ModelConfig("scripted:mixed", "scripted", "standard", 7),
        seed=7,
        artifacts_dir=tmp_path_factory.mktemp("artifacts"),
    )
    result = []
    for scenario in suite.scenarios:
        facts = facts_from_wire(scenario.frame_doc)
        piped = run_pipeline(
            facts,
            profile=context.profile,
            adapter=adapter,
            sampler=context.sampler,
            seed=context.seed,
            clock=lambda: 0.0,
            scenario_id=scenario.scenario_id,
        )
        ran = ScenarioRun(piped, facts, piped.frame, None, NOW, NOW)
        result.append(
            scenario_artifact_of(
                "r1", context, scenario, ran, planning=None, claims=None
            )
        )
    return result


@pytest.fixture(scope="module")
def outcomes(artifacts: list[ScenarioArtifact]) -> list[ScenarioOutcome]:
    # Each outcome is read back from the stored bytes, as a finished run's.
    return [
        outcome_of(
            case_id=a.scenario.scenario_id,
            affordance=a.scenario.action_affordance,
            stimulus_kind=a.scenario.stimulus_kind,
            tags=a.tags,
            artifact=ScenarioArtifact.from_wire(json.loads(json_bytes(a.to_wire()))),
        )
        for a in artifacts
    ]


def test_scenario_artifacts_read_back_from_their_bytes_are_the_same_record(
    artifacts: list[ScenarioArtifact],
) -> None:
    for artifact in artifacts:
        wire = json.loads(json_bytes(artifact.to_wire()))
        assert ScenarioArtifact.from_wire(wire) == artifact
        assert json_bytes(ScenarioArtifact.from_wire(wire).to_wire()) == json_bytes(
            wire
        )


def test_ev_c5_run_metrics_equal_the_reference(
    outcomes: list[ScenarioOutcome], expected: dict[str, Any]
) -> None:
    metrics = compute_metrics(outcomes)
    want = expected["metrics"]
    assert metrics.action_rate == pytest.approx(want["action_rate"])
    assert metrics.grounding_pass_rate == pytest.approx(want["grounding_pass_rate"])
    assert metrics.repetition_rate == pytest.approx(want["repetition_rate"])
    assert metrics.compulsion_count == want["compulsion_count"]
    assert metrics.inertia_count == want["inertia_count"]
    assert metrics.hallucination_count == want["hallucination_count"]
    assert metrics.anchoring_ratio_mean == pytest.approx(want["anchoring_ratio_mean"])
    assert metrics.latency_p50_ms == want["latency_p50_ms"]
    assert metrics.latency_p95_ms == want["latency_p95_ms"]


def test_ev_c5_per_scenario_results_equal_the_reference(
    outcomes: list[ScenarioOutcome], expected: dict[str, Any]
) -> None:
    ours = []
    for outcome in outcomes:
        discouraged = outcome.affordance == ActionAffordance.DISCOURAGED
        ours.append(
            {
                "scenario_id": outcome.scenario_id,
                "pass": evaluate_scenario(outcome).passed,
                "action_taken": outcome.is_action,
                "is_compulsion": outcome.is_action and discouraged,
                "is_inertia": not outcome.is_action
                and outcome.affordance == ActionAffordance.EXPECTED,
                "grounding_pass": outcome.grounding_passed,
                "referenced_facts_count": outcome.referenced_facts,
            }
        )
    assert ours == expected["scenarios"]


def test_ev_c5_contradiction_is_no_hallucination(
    outcomes: list[ScenarioOutcome],
) -> None:
    by_id = {o.scenario_id: o for o in outcomes}
    empty = by_id["grounding-test-sparse"]  # craft with nothing held
    assert (empty.grounding_passed, empty.contradiction) == (False, True)
    assert empty.hallucination_category is None
    assert compute_metrics(outcomes).contradiction_count == 1


def test_ev_c5_mine_stone_with_cobblestone_held_is_grounded(
    outcomes: list[ScenarioOutcome],
) -> None:
    fall = {o.scenario_id: o for o in outcomes}["damage-fall"]
    assert (fall.goal_extracted, fall.grounding_passed, fall.is_action) == (
        True,
        True,
        True,
    )
