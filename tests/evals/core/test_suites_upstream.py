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

from evals.core.suite_types import SuiteInvalid
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


# --- what the upstream scenario schema refuses is refused here too -----------


def _problems(data: bytes) -> list[tuple[str, str]]:
    with pytest.raises(SuiteInvalid) as caught:
        parse_suite(data, path=Path("s.jsonl"))
    ((number, problems),) = [(i.line, i.errors) for i in caught.value.invalid_lines]
    assert number == 1
    return [(p.path, p.code) for p in problems]


def _items(n: int, make: Any) -> list[Any]:
    return [make(i) for i in range(n)]


_OVER_UPSTREAM_LIMITS = [
    (
        lambda f: _bot(f).update(health=19.5),
        ("$.frame.facts.bot.health", "type"),
    ),
    (
        lambda f: _bot(f).update(hunger=0.5),
        ("$.frame.facts.bot.hunger", "type"),
    ),
    (
        lambda f: _bot(f).update(
            inventorySummary=_items(129, lambda i: {"item": f"i{i}", "count": 1})
        ),
        ("$.frame.facts.bot.inventorySummary", "maxItems"),
    ),
    (
        lambda f: _world(f).update(
            nearbyEntities=_items(
                65, lambda i: {"kind": "bat", "count": 1, "distanceMin": i}
            )
        ),
        ("$.frame.facts.world.nearbyEntities", "maxItems"),
    ),
    (
        lambda f: f.update(deltas=_items(65, lambda i: {"type": "other", "value": i})),
        ("$.frame.deltas", "maxItems"),
    ),
    (
        lambda f: f.update(
            memory={"episodic": _items(17, lambda i: {"timestampMs": i, "text": "x"})}
        ),
        ("$.frame.memory.episodic", "maxItems"),
    ),
    (
        lambda f: f.update(
            memory={"semantic": _items(17, lambda i: {"key": f"k{i}", "text": "x"})}
        ),
        ("$.frame.memory.semantic", "maxItems"),
    ),
]


@pytest.mark.parametrize(
    ("change", "problem"),
    _OVER_UPSTREAM_LIMITS,
    ids=[
        "fractional-health",
        "fractional-hunger",
        "129-items",
        "65-entities",
        "65-deltas",
        "17-episodic",
        "17-semantic",
    ],
)
def test_ev_c2_frames_the_upstream_schema_refuses_are_refused(
    change: Any, problem: tuple[str, str]
) -> None:
    assert _problems(_with_frame(change)) == [problem]


@pytest.mark.parametrize(
    "change",
    [
        lambda f: _bot(f).update(health=20.0, hunger=0),
        lambda f: _bot(f).update(
            inventorySummary=_items(128, lambda i: {"item": f"i{i}", "count": 1})
        ),
        lambda f: _world(f).update(
            nearbyEntities=_items(
                64, lambda i: {"kind": "bat", "count": 1, "distanceMin": i}
            )
        ),
        lambda f: f.update(
            deltas=_items(64, lambda i: {"type": "other", "value": i}),
            memory={
                "episodic": _items(16, lambda i: {"timestampMs": i, "text": "x"}),
                "semantic": _items(16, lambda i: {"key": f"k{i}", "text": "x"}),
            },
        ),
    ],
    ids=["whole-number-written-20.0", "128-items", "64-entities", "16-memories"],
)
def test_ev_c2_frames_at_the_upstream_limits_are_accepted(change: Any) -> None:
    assert len(parse_suite(_with_frame(change), path=Path("s.jsonl")).scenarios) == 1


@pytest.mark.parametrize("where", ["stimulus", "oracle"])
def test_ev_c2_notes_over_2000_characters_are_refused(where: str) -> None:
    doc = scenario()
    doc[where]["notes"] = "n" * 2000
    ok = (json.dumps(doc) + "\n").encode()
    assert parse_suite(ok, path=Path("s.jsonl")).scenarios[0]
    doc[where]["notes"] = "n" * 2001
    data = (json.dumps(doc) + "\n").encode()

    assert _problems(data) == [(f"$.{where}.notes", "maxLength")]


@pytest.mark.parametrize(
    ("field", "value"),
    [("scenario_id", "s1\n"), ("oracle_version", "v1\n")],
)
def test_ev_c2_ids_ending_in_a_newline_are_refused(field: str, value: str) -> None:
    # A JavaScript ``$`` ends the text; Python's would also match before a
    # final newline. The pattern says so explicitly.
    doc = scenario()
    if field == "scenario_id":
        doc["scenario_id"] = value
        path = "$.scenario_id"
    else:
        doc["oracle"]["oracle_version"] = value
        path = "$.oracle.oracle_version"
    data = (json.dumps(doc) + "\n").encode()

    assert _problems(data) == [(path, "pattern")]


def test_ev_c2_duplicate_keys_last_wins_as_upstream() -> None:
    # JSON.parse keeps the last of two equal keys; the line loads there.
    text = json.dumps(scenario())
    data = (text[:-1] + ', "scenario_id": "s2"}\n').encode()

    suite = parse_suite(data, path=Path("s.jsonl"))

    assert [s.scenario_id for s in suite.scenarios] == ["s2"]


def test_ev_c1_lines_of_unicode_spaces_are_blank_as_upstream() -> None:
    # The upstream loader skips a line whose JavaScript trim() is empty.
    line = json.dumps(scenario()).encode()
    data = b"\xc2\xa0\n" + line + b"\n\xe3\x80\x80 \t\n\xef\xbb\xbf\n"

    suite = parse_suite(data, path=Path("s.jsonl"))

    assert suite.line_count == 1
    assert [s.line for s in suite.scenarios] == [2]
