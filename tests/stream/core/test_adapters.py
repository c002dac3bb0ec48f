"""Model adapters: samplers, scripted replays, the seeded baseline policy."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.errors import CoreError, NotFound
from stream.core.adapters import (
    SAMPLERS,
    ModelAdapter,
    ScriptedAdapter,
    ScriptInvalid,
    ScriptMissing,
)
from stream.core.baseline import BaselineAdapter, observe
from stream.core.frames import facts_from_wire, render_frame
from stream.core.pipeline import evaluate_output
from stream.core.prompts import build_prompt
from stream.core.types import (
    Generation,
    PromptProfile,
    SamplerProfile,
    SituationFacts,
    TimeOfDay,
)

STANDARD = SAMPLERS["standard"]


def test_sampler_profiles() -> None:
    assert {
        "low-variance": SamplerProfile("low-variance", 0.3, 0.9, 512),
        "standard": SamplerProfile("standard", 0.7, 0.95, 512),
        "creative": SamplerProfile("creative", 0.9, 1.0, 768),
    } == SAMPLERS


# --- scripted ----------------------------------------------------------------


def test_scripted_returns_recorded_output_and_latency(tmp_path: Path) -> None:
    script = tmp_path / "outputs.jsonl"
    script.write_text(
        '{"scenario_id": "calm-1", "output": "All quiet."}\n'
        "\n"
        '{"scenario_id": "threat-1", "output": "[GOAL: navigate away]", '
        '"latency_ms": 812.5}\n'
    )
    adapter = ScriptedAdapter.from_path(script)
    assert adapter.generate("p", sampler=STANDARD, seed=1, scenario_id="calm-1") == (
        Generation("All quiet.", None)
    )
    assert adapter.generate("p", sampler=STANDARD, seed=1, scenario_id="threat-1") == (
        Generation("[GOAL: navigate away]", 812.5)
    )
    assert adapter.model_id == f"scripted:{script}"


def test_scripted_reports_every_bad_line_with_path_and_line(tmp_path: Path) -> None:
    script = tmp_path / "bad.jsonl"
    script.write_text(
        '{"scenario_id": "a", "output": "ok"}\n'
        "not json\n"
        '{"scenario_id": "", "output": "x"}\n'
        '{"scenario_id": "b", "output": 3}\n'
        '{"scenario_id": "c", "output": "x", "extra": 1}\n'
        '{"scenario_id": "a", "output": "again"}\n'
        '{"scenario_id": "d", "output": "x", "latency_ms": -1}\n'
        '["list"]\n'
    )
    with pytest.raises(ScriptInvalid) as raised:
        ScriptedAdapter.from_path(script)
    error = raised.value
    assert error.code == "script_invalid"
    assert error.message == (f"{script}:2: invalid JSON: Expecting value (and 6 more)")
    assert error.details == {
        "path": str(script),
        "errors": [
            {"line": 2, "message": "invalid JSON: Expecting value"},
            {"line": 3, "message": "scenario_id must be a non-empty string"},
            {"line": 4, "message": "output must be a string"},
            {"line": 5, "message": "unknown properties: extra"},
            {"line": 6, "message": "duplicate scenario_id 'a'"},
            {"line": 7, "message": "latency_ms must be a number >= 0"},
            {"line": 8, "message": "line is not a JSON object"},
        ],
    }


def test_scripted_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CoreError) as raised:
        ScriptedAdapter.from_path(tmp_path / "absent.jsonl")
    assert raised.value.code == "script_unreadable"
    assert str(tmp_path / "absent.jsonl") in raised.value.message


@pytest.mark.parametrize("scenario_id", ["unknown", None])
def test_scripted_missing_scenario_is_not_found(scenario_id: str | None) -> None:
    adapter = ScriptedAdapter.from_lines(['{"scenario_id": "a", "output": "x"}'])
    with pytest.raises(ScriptMissing) as raised:
        adapter.generate("p", sampler=STANDARD, seed=1, scenario_id=scenario_id)
    assert isinstance(raised.value, NotFound)
    assert raised.value.message == (
        f"no scripted output for scenario_id={scenario_id} in <lines>"
    )


# --- baseline ----------------------------------------------------------------


def _generate(
    facts: SituationFacts,
    *,
    profile: str = "rich",
    sampler: str = "standard",
    seed: int = 7,
    scenario_id: str | None = "s1",
    adapter: ModelAdapter | None = None,
) -> str:
    frame = render_frame(facts, profile=PromptProfile(profile))
    model = adapter or BaselineAdapter()
    return model.generate(
        build_prompt(frame),
        sampler=SAMPLERS[sampler],
        seed=seed,
        scenario_id=scenario_id,
        frame=frame,
    ).text


def test_observe_reads_back_the_rendered_frame(full_facts: SituationFacts) -> None:
    seen = observe(render_frame(full_facts, profile=PromptProfile.RICH).text)
    assert (seen.health, seen.hunger, seen.time, seen.threat) == (
        14.0,
        9.5,
        TimeOfDay.SUNSET,
        "high",
    )
    assert seen.inventory == ["oak_log", "stone", "iron_ore", "bread"]
    assert seen.biome == "birch_forest"
    assert [(s.kind, s.count, s.distance, s.hostile) for s in seen.nearby] == [
        ("zombie", 1, 5, True),
        ("skeleton", 2, 18, True),
        ("cow", 2, 12, False),
    ]
    assert seen.damage == 4.0


def test_baseline_is_deterministic_per_seed_and_scenario(
    calm_facts: SituationFacts,
) -> None:
    outputs = {_generate(calm_facts, sampler="creative", seed=s) for s in range(20)}
    assert _generate(calm_facts, sampler="creative", seed=3) == _generate(
        calm_facts, sampler="creative", seed=3
    )
    assert len(outputs) > 1  # the seed matters at a high temperature


def test_low_variance_baseline_ignores_the_seed(calm_facts: SituationFacts) -> None:
    outputs = {_generate(calm_facts, sampler="low-variance", seed=s) for s in range(10)}
    assert outputs == {"It is daytime in the plains. I notice 3 sheep about 9m away."}


def test_baseline_reads_the_prompt_when_no_frame_is_given(
    calm_facts: SituationFacts,
) -> None:
    frame = render_frame(calm_facts, profile=PromptProfile.BALANCED)
    text = BaselineAdapter().generate(
        build_prompt(frame), sampler=SAMPLERS["low-variance"], seed=1
    )
    assert text == Generation(
        "It is daytime in the plains. I notice 3 sheep about 9m away.", None
    )


@pytest.mark.parametrize("profile", ["minimal", "balanced", "rich"])
@pytest.mark.parametrize("seed", range(5))
def test_baseline_emits_no_goal_without_stimulus(
    calm_facts: SituationFacts, profile: str, seed: int
) -> None:
    text = _generate(calm_facts, profile=profile, sampler="creative", seed=seed)
    assert "[GOAL" not in text
    _, _, decision = evaluate_output(text, facts=calm_facts)
    assert decision.reason == "no_goal"


def _calm_with(calm_doc: dict[str, Any], **bot: Any) -> SituationFacts:
    calm_doc["facts"]["bot"].update(bot)
    return facts_from_wire(calm_doc)


def test_baseline_flees_a_visible_hostile_with_a_grounded_goal(
    full_facts: SituationFacts,
) -> None:
    text = _generate(full_facts, profile="rich")
    assert text.startswith("A zombie is 5m away and hostile. ")
    assert text.endswith("\n[GOAL: navigate away from zombie]")
    _, grounding, decision = evaluate_output(text, facts=full_facts)
    assert grounding.passed
    assert decision.reason == "eligible"


def test_baseline_reacts_to_a_threat_level_it_cannot_see_the_source_of(
    full_facts: SituationFacts,
) -> None:
    text = _generate(full_facts, profile="minimal")
    assert text.endswith("\n[GOAL: navigate away]")


def test_baseline_critical_health_shelters(calm_doc: dict[str, Any]) -> None:
    facts = _calm_with(calm_doc, health=5)
    text = _generate(facts, profile="balanced")
    assert text.startswith("My health is down to 5/20. ")
    assert text.endswith("\n[GOAL: build shelter 1]")
    assert evaluate_output(text, facts=facts)[2].reason == "eligible"


def test_baseline_critical_hunger_finds_a_food_animal(calm_doc: dict[str, Any]) -> None:
    facts = _calm_with(calm_doc, hunger=4)
    text = _generate(facts, profile="balanced")
    assert text.endswith("\n[GOAL: find sheep 1]")
    assert evaluate_output(text, facts=facts)[2].reason == "eligible"


def test_baseline_hunger_without_animals_gathers_food(calm_doc: dict[str, Any]) -> None:
    calm_doc["facts"]["world"]["nearbyEntities"] = []
    facts = _calm_with(calm_doc, hunger=6)
    assert _generate(facts).endswith("\n[GOAL: gather food]")


def test_baseline_damage_without_a_visible_source_only_checks(
    calm_doc: dict[str, Any],
) -> None:
    calm_doc["deltas"] = [{"type": "damage_taken", "value": 3}]
    facts = facts_from_wire(calm_doc)
    text = _generate(facts, profile="rich")
    assert text.endswith("\n[GOAL: check surroundings]")
    assert evaluate_output(text, facts=facts)[2].reason == "not_routable"
    # The balanced profile shows no recent changes, so there is no stimulus.
    assert "[GOAL" not in _generate(facts, profile="balanced")


def test_baseline_never_acts_at_zero_health(calm_doc: dict[str, Any]) -> None:
    assert "[GOAL" not in _generate(_calm_with(calm_doc, health=0))


def test_baseline_plurals(calm_doc: dict[str, Any]) -> None:
    calm_doc["facts"]["world"]["nearbyEntities"] = [
        {"kind": "minecraft:wolf", "count": 2, "distanceMin": 4}
    ]
    text = _generate(facts_from_wire(calm_doc), sampler="low-variance")
    assert text == "It is daytime in the plains. I notice 2 wolves about 4m away."


def test_baseline_model_id() -> None:
    assert BaselineAdapter().model_id == "baseline-v1"


def test_adapters_satisfy_the_protocol() -> None:
    adapters: list[ModelAdapter] = [BaselineAdapter(), ScriptedAdapter.from_lines([])]
    assert [a.model_id for a in adapters] == ["baseline-v1", "scripted:<lines>"]


def test_scripted_lines_accept_json_dumps(calm_facts: SituationFacts) -> None:
    line = json.dumps({"scenario_id": "s1", "output": "Cows.\nINTENT: food"})
    adapter = ScriptedAdapter.from_lines([line], source="inline")
    assert _generate(calm_facts, adapter=adapter) == "Cows.\nINTENT: food"
    assert replace(adapter, source="x").model_id == "scripted:x"
