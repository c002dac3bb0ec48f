"""Suites written for the upstream harness load here unmodified (EV-C1, EV-C2).

``upstream/idle-v1.jsonl`` is the idle suite shipped by the project the
harness contract comes from, byte for byte; the cases below are lines its
suite schema accepts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evals.core.suites import load_suite, parse_suite
from stream.core.frames import facts_from_wire, render_frame

UPSTREAM_IDLE = Path(__file__).parent / "upstream" / "idle-v1.jsonl"


def scenario(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "scenario_id": "s1",
        "stimulus": {
            "kind": "low_stimulus_stable",
            "strength": 0.1,
            "action_affordance": "discouraged",
        },
        "frame": {
            "facts": {
                "bot": {
                    "position": {"x": 1, "y": 64, "z": -3},
                    "health": 20,
                    "hunger": 18,
                    "inventorySummary": [{"item": "bread", "count": 2}],
                    "timeOfDay": "day",
                },
                "world": {"biome": "plains", "nearbyEntities": []},
            }
        },
        "oracle": {"oracle_version": "v1"},
    }
    doc.update(overrides)
    return doc


def test_ev_c1_upstream_idle_suite_loads_unmodified() -> None:
    suite = load_suite(UPSTREAM_IDLE)
    assert suite.line_count == 20
    assert len(suite.scenarios) == 20
    assert suite.suite_sha256 == (
        "b2f7c80a59a6d15b8543b2f5a64f69ea143ddc23c55b566f2a1b98f53532cf13"
    )
    by_id = {s.scenario_id: s for s in suite.scenarios}
    threat = by_id["threat-single-hostile"].frame_doc["deltas"]
    assert threat == [
        {"type": "new_entity", "value": {"kind": "skeleton", "hostile": True}}
    ]


def _with_frame(change: Any) -> bytes:
    doc = scenario()
    change(doc["frame"])
    return (json.dumps(doc) + "\n").encode()


def _bot(frame: dict[str, Any]) -> dict[str, Any]:
    bot: dict[str, Any] = frame["facts"]["bot"]
    return bot


def _world(frame: dict[str, Any]) -> dict[str, Any]:
    world: dict[str, Any] = frame["facts"]["world"]
    return world


@pytest.mark.parametrize(
    "value",
    [
        {"kind": "skeleton", "hostile": True},
        ["zombie", "skeleton"],
        True,
        None,
        "x" * 501,
        -2.5,
    ],
    ids=["object", "array", "boolean", "null", "long-string", "number"],
)
def test_ev_c2_delta_value_may_be_any_json_value(value: Any) -> None:
    def change(frame: dict[str, Any]) -> None:
        frame["deltas"] = [{"type": "other", "value": copy.deepcopy(value)}]

    suite = parse_suite(_with_frame(change), path=Path("s.jsonl"))
    assert suite.scenarios[0].frame_doc["deltas"][0]["value"] == value


@pytest.mark.parametrize(
    "change",
    [
        lambda f: _bot(f)["inventorySummary"].append({"item": "stick", "count": 0}),
        lambda f: _world(f)["nearbyEntities"].append(
            {"kind": "bat", "count": 0, "distanceMin": 3}
        ),
        lambda f: _bot(f)["inventorySummary"].append({"item": "odd[1]", "count": 1}),
        lambda f: _bot(f)["inventorySummary"].append({"item": "y" * 101, "count": 1}),
        lambda f: _world(f).update(biome="deep  dark [v2]"),
        lambda f: _world(f)["nearbyEntities"].append(
            {"kind": "[wandering] trader", "count": 1, "distanceMin": 3}
        ),
        lambda f: f.update(
            memory={"semantic": [{"key": "k" * 128, "text": "Known place."}]}
        ),
    ],
    ids=[
        "item-count-0",
        "entity-count-0",
        "name-with-brackets",
        "name-over-100",
        "biome-free-form",
        "entity-with-brackets",
        "semantic-key-128",
    ],
)
def test_ev_c2_frames_the_upstream_schema_accepts_are_accepted(change: Any) -> None:
    suite = parse_suite(_with_frame(change), path=Path("s.jsonl"))
    assert len(suite.scenarios) == 1


@pytest.mark.parametrize(
    "tags",
    [["idle", "idle"], ["t" * 65], [f"t{i}" for i in range(32)]],
    ids=["duplicates", "over-64-chars", "32-tags"],
)
def test_ev_c2_tags_the_upstream_schema_accepts_are_accepted(tags: list[str]) -> None:
    data = (json.dumps(scenario(tags=tags)) + "\n").encode()
    assert parse_suite(data, path=Path("s.jsonl")).scenarios[0].tags == tuple(tags)


UPSTREAM_FRAMES = Path(__file__).parent / "upstream" / "idle-v1.frames.json"


def _frame_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(UPSTREAM_FRAMES.read_text("utf-8"))
    return cases


@pytest.mark.parametrize(
    "case", _frame_cases(), ids=lambda c: f"{c['scenario_id']}-{c['profile']}"
)
def test_ev_c3_frames_render_as_upstream(case: dict[str, Any]) -> None:
    # Expected texts and counts are the reference renderer's output for the
    # upstream idle suite, one per scenario and profile.
    by_id = {s.scenario_id: s for s in load_suite(UPSTREAM_IDLE).scenarios}
    facts = facts_from_wire(by_id[case["scenario_id"]].frame_doc)
    frame = render_frame(facts, profile=case["profile"])
    assert frame.text == case["text"]
    assert (frame.fact_count, frame.memory_count, frame.delta_count) == (
        case["facts"],
        case["memories"],
        case["deltas"],
    )
