"""The suites and scripted outputs shipped in ``evals/suites/``.

The goal-tag check here is a deliberately simple reading of the tag syntax
(``[GOAL: <action> <target> <amount>?]``) so the shipped data can be checked
without the stream pipeline; the pipeline's own tests cover its parser.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from evals.core.metrics import compute_metrics, evaluate_verdict
from evals.core.suite_types import (
    ActionAffordance,
    LoadedSuite,
    Scenario,
    ScenarioOutcome,
    StimulusKind,
)
from evals.core.suites import load_suite, scenario_to_wire
from stream.core.goals import CANONICAL_ACTIONS, ROUTABLE_ACTIONS

SUITES = Path(__file__).resolve().parents[3] / "evals" / "suites"
GOAL_TAG = re.compile(r"\[GOAL:\s*([a-z_]+)\s+([a-z_]+)(?:\s+(\d+))?\s*\]")


def read_script(name: str) -> list[dict[str, Any]]:
    text = (SUITES / name).read_text(encoding="utf-8")
    return [json.loads(row) for row in text.splitlines() if row.strip()]


def goal_of(output: str) -> tuple[str, str] | None:
    match = GOAL_TAG.search(output)
    return (match.group(1), match.group(2)) if match else None


def frame_names(scenario: Scenario) -> set[str]:
    facts = scenario.frame_doc["facts"]
    return (
        {i["item"] for i in facts["bot"]["inventorySummary"]}
        | {e["kind"] for e in facts["world"]["nearbyEntities"]}
        | {facts["world"]["biome"]}
    )


def outcomes(suite: LoadedSuite, script: list[dict[str, Any]]) -> list[ScenarioOutcome]:
    """What a pipeline that grounds goal targets in the frame would report."""
    by_id = {row["scenario_id"]: row for row in script}
    result = []
    for scenario in suite.scenarios:
        row = by_id[scenario.scenario_id]
        goal = goal_of(row["output"])
        grounded = None if goal is None else goal[1] in frame_names(scenario)
        result.append(
            ScenarioOutcome(
                scenario_id=scenario.scenario_id,
                affordance=scenario.stimulus.action_affordance,
                stimulus_kind=scenario.stimulus.kind,
                tags=scenario.tags,
                error=None,
                output_text=row["output"],
                goal_emitted=goal is not None,
                goal_extracted=goal is not None,
                grounding_passed=grounded,
                hallucination_category="missing_item" if grounded is False else None,
                convert_eligible=bool(grounded),
                latency_ms=row["latency_ms"],
            )
        )
    return result


@pytest.fixture(scope="module")
def idle() -> LoadedSuite:
    return load_suite(SUITES / "idle-v1.jsonl")


@pytest.fixture(scope="module")
def smoke() -> LoadedSuite:
    return load_suite(SUITES / "smoke.jsonl")


def test_idle_v1_has_20_scenarios_by_affordance(idle: LoadedSuite) -> None:
    counts = Counter(s.stimulus.action_affordance for s in idle.scenarios)

    assert idle.suite_id == "idle-v1"
    assert idle.line_count == 20
    assert counts == {
        ActionAffordance.DISCOURAGED: 8,
        ActionAffordance.ALLOWED: 8,
        ActionAffordance.EXPECTED: 4,
    }


def test_idle_v1_covers_every_stimulus_kind(idle: LoadedSuite) -> None:
    assert {s.stimulus.kind for s in idle.scenarios} == set(StimulusKind)


def test_smoke_has_5_scenarios_of_every_affordance(smoke: LoadedSuite) -> None:
    counts = Counter(s.stimulus.action_affordance for s in smoke.scenarios)

    assert smoke.line_count == 5
    assert counts == {
        ActionAffordance.DISCOURAGED: 2,
        ActionAffordance.ALLOWED: 2,
        ActionAffordance.EXPECTED: 1,
    }


@pytest.mark.parametrize("suite_name", ["idle-v1.jsonl", "smoke.jsonl"])
def test_shipped_lines_round_trip(suite_name: str) -> None:
    path = SUITES / suite_name
    lines = [json.loads(r) for r in path.read_text("utf-8").splitlines() if r.strip()]

    suite = load_suite(path)

    assert [scenario_to_wire(s) for s in suite.scenarios] == lines


@pytest.mark.parametrize("suite_name", ["idle-v1.jsonl", "smoke.jsonl"])
def test_shipped_scenarios_carry_notes_and_a_v1_oracle(suite_name: str) -> None:
    suite = load_suite(SUITES / suite_name)

    assert all(s.stimulus.notes and s.oracle.notes for s in suite.scenarios)
    assert {s.version for s in suite.scenarios} == {"v1"}


@pytest.mark.parametrize(
    ("suite_name", "script_name"),
    [
        ("idle-v1.jsonl", "idle-v1.script.jsonl"),
        ("idle-v1.jsonl", "idle-v1-regressed.script.jsonl"),
        ("smoke.jsonl", "smoke.script.jsonl"),
    ],
)
def test_scripts_cover_every_scenario_once_in_suite_order(
    suite_name: str, script_name: str
) -> None:
    suite = load_suite(SUITES / suite_name)
    script = read_script(script_name)

    assert [r["scenario_id"] for r in script] == [
        s.scenario_id for s in suite.scenarios
    ]
    for row in script:
        assert set(row) == {"scenario_id", "output", "latency_ms"}
        assert isinstance(row["output"], str)
        assert row["output"].strip()
        assert isinstance(row["latency_ms"], int | float)
        assert row["latency_ms"] > 0


@pytest.mark.parametrize(
    ("suite_name", "script_name"),
    [("idle-v1.jsonl", "idle-v1.script.jsonl"), ("smoke.jsonl", "smoke.script.jsonl")],
)
def test_good_scripts_act_only_where_allowed_and_grounded(
    suite_name: str, script_name: str
) -> None:
    suite = load_suite(SUITES / suite_name)
    by_id = {r["scenario_id"]: r["output"] for r in read_script(script_name)}

    for scenario in suite.scenarios:
        goal = goal_of(by_id[scenario.scenario_id])
        if scenario.stimulus.action_affordance is ActionAffordance.DISCOURAGED:
            assert goal is None, scenario.scenario_id
        if goal is not None:
            action, target = goal
            assert action in ROUTABLE_ACTIONS & CANONICAL_ACTIONS
            assert target in frame_names(scenario), scenario.scenario_id
            assert by_id[scenario.scenario_id].count("[GOAL:") == 1


def test_idle_v1_script_passes_with_some_action_and_inertia(idle: LoadedSuite) -> None:
    run = outcomes(idle, read_script("idle-v1.script.jsonl"))
    metrics = compute_metrics(run)

    verdict = evaluate_verdict(metrics, run)

    assert (verdict.passed, verdict.failed_properties) == (True, ())
    assert (metrics.action_count, metrics.action_rate) == (6, 0.3)
    assert metrics.inertia_count == 1
    assert metrics.repetition_count == 0
    assert (metrics.latency_p50_ms, metrics.latency_p95_ms) == (444.4, 590.2)


def test_regressed_script_compels_twice(idle: LoadedSuite) -> None:
    good = {r["scenario_id"]: r["output"] for r in read_script("idle-v1.script.jsonl")}
    worse = read_script("idle-v1-regressed.script.jsonl")
    run = outcomes(idle, worse)
    metrics = compute_metrics(run)

    verdict = evaluate_verdict(metrics, run)

    # Three outputs changed: two act where acting is discouraged; the third
    # acts where it is allowed, on something the frame holds.
    assert sum(r["output"] != good[r["scenario_id"]] for r in worse) == 3
    assert (metrics.compulsion_count, metrics.compulsion_proxy) == (2, 0.25)
    assert metrics.hallucination_count == 0
    assert verdict.failed_properties == ("no_compulsion",)
    assert [s.scenario_id for s in verdict.per_scenario if not s.passed] == [
        "idle-v1:stable-meadow-day",
        "idle-v1:villager-passing",
    ]


def test_scripts_exercise_the_sanitizer() -> None:
    outputs = [
        r["output"]
        for name in ("idle-v1.script.jsonl", "smoke.script.jsonl")
        for r in read_script(name)
    ]

    assert any(o.startswith("```") for o in outputs)
    assert any(o.startswith('"') and o.endswith('"') for o in outputs)
    assert any(o.splitlines()[-1].startswith("INTENT: ") for o in outputs)
    assert any(
        "INTENT: " in line and not line.startswith("INTENT: ")
        for o in outputs
        for line in o.splitlines()[:-1]
    )


# ---------------------------------------------------------------- with the pipeline


@pytest.mark.parametrize("suite_name", ["idle-v1.jsonl", "smoke.jsonl"])
def test_shipped_frames_parse_and_render_with_the_stream_pipeline(
    suite_name: str,
) -> None:
    frames = pytest.importorskip("stream.core.frames")
    stream_types = pytest.importorskip("stream.core.types")
    suite = load_suite(SUITES / suite_name)

    for scenario in suite.scenarios:
        facts = frames.facts_from_wire(scenario.frame_doc)
        for profile in stream_types.PromptProfile:
            rendered = frames.render_frame(facts, profile=profile)
            assert rendered.text.startswith("[Bot State]"), scenario.scenario_id


@pytest.mark.parametrize(
    "script_name",
    ["idle-v1.script.jsonl", "idle-v1-regressed.script.jsonl", "smoke.script.jsonl"],
)
def test_stream_sanitizer_reads_the_same_goals_as_this_test(script_name: str) -> None:
    sanitizer = pytest.importorskip("stream.core.sanitizer")

    for row in read_script(script_name):
        result = sanitizer.sanitize(row["output"])
        got = (result.goal.action, result.goal.target) if result.goal else None
        assert got == goal_of(row["output"]), row["scenario_id"]
        assert "INTENT" not in result.text
        assert "```" not in result.text
        assert not result.text.startswith('"')
