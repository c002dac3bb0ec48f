"""Suite loading: hot swap (EV-C1), every invalid line reported (EV-C2)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from core.canonical import digest
from core.errors import NotFound, SchemaProblem
from evals.core.suite_types import (
    ActionAffordance,
    InvalidLine,
    StimulusKind,
    SuiteInvalid,
)
from evals.core.suites import load_suite, parse_suite, scenario_to_wire
from evals.examples import example_scenario as scenario

REPO = Path(__file__).resolve().parents[3]
SCENARIO_SCHEMA = REPO / "evals" / "core" / "schemas" / "scenario.v1.schema.json"
STREAM_FRAME_SCHEMA = REPO / "stream" / "core" / "schemas" / "frame.v1.schema.json"


def line(doc: Any) -> str:
    return json.dumps(doc)


def write(tmp_path: Path, *lines: str, name: str = "suite.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def invalid_lines(path: Path) -> tuple[InvalidLine, ...]:
    with pytest.raises(SuiteInvalid) as excinfo:
        load_suite(path)
    assert excinfo.value.path == path
    return excinfo.value.invalid_lines


# ---------------------------------------------------------------- EV-C1


def test_ev_c1_edited_file_shows_new_line_count_and_sha256(tmp_path: Path) -> None:
    path = write(tmp_path, line(scenario("a")), line(scenario("b")))
    first = load_suite(path)

    with path.open("a", encoding="utf-8") as handle:
        handle.write(line(scenario("c")) + "\n")
    second = load_suite(path)

    assert (first.line_count, second.line_count) == (2, 3)
    assert first.suite_sha256 != second.suite_sha256
    assert second.suite_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert [s.scenario_id for s in second.scenarios] == ["a", "b", "c"]


def test_ev_c1_in_place_edit_is_seen_on_the_next_load(tmp_path: Path) -> None:
    path = write(tmp_path, line(scenario("a")))
    before = load_suite(path)
    edited = scenario("a", oracle={"oracle_version": "v2"})
    write(tmp_path, line(edited))

    after = load_suite(path)

    assert after.line_count == before.line_count == 1
    assert after.suite_sha256 != before.suite_sha256
    assert after.scenarios[0].version == "v2"
    assert after.scenarios[0].scenario_sha256 == digest(edited)
    assert before.scenarios[0].scenario_sha256 != after.scenarios[0].scenario_sha256


def test_suite_sha256_is_of_the_exact_bytes(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    data = (line(scenario("a")) + "\n\n   \n").encode()
    path.write_bytes(data)

    loaded = load_suite(path)

    assert loaded.suite_sha256 == hashlib.sha256(data).hexdigest()
    assert loaded.line_count == 1
    assert loaded.suite_id == "x"
    assert loaded.path == path


# ---------------------------------------------------------------- EV-C2


def test_ev_c2_reports_every_invalid_line_with_physical_numbers(
    tmp_path: Path,
) -> None:
    unknown = scenario("bad-unknown")
    unknown["stimulus"]["loudness"] = 3
    wrong = scenario("Bad Id", oracle={"oracle_version": "1"})
    path = write(
        tmp_path,
        line(scenario("ok-1")),
        "",
        line(unknown),
        '{"scenario_id": "broken",',
        "   ",
        line(scenario("ok-2")),
        line(wrong),
    )

    result = invalid_lines(path)

    assert result == (
        InvalidLine(
            line=3,
            errors=(
                SchemaProblem(
                    "$.stimulus.loudness",
                    "unknown_property",
                    "unknown property: loudness",
                ),
            ),
        ),
        InvalidLine(
            line=4,
            errors=(
                SchemaProblem(
                    "$",
                    "invalid_json",
                    "invalid JSON: Expecting property name enclosed in double "
                    "quotes at column 26",
                ),
            ),
        ),
        InvalidLine(
            line=7,
            errors=(
                SchemaProblem(
                    "$.oracle.oracle_version",
                    "pattern",
                    '"1" does not match "^v[0-9]+(?!\\\\n)$"',
                ),
                SchemaProblem(
                    "$.scenario_id",
                    "pattern",
                    '"Bad Id" does not match "^[a-z0-9][a-z0-9_\\\\-:.]{0,127}(?!\\\\n)$"',
                ),
            ),
        ),
    )


def test_ev_c2_errors_json_is_a_path_message_list(tmp_path: Path) -> None:
    doc = scenario("a")
    doc["extra"] = 1
    del doc["oracle"]
    (bad,) = invalid_lines(write(tmp_path, line(doc)))

    assert bad.line == 1
    assert bad.errors_json() == (
        '[{"path":"$","message":"\\"oracle\\" is a required property"},'
        '{"path":"$.extra","message":"unknown property: extra"}]'
    )


def test_ev_c2_exception_carries_file_version_and_details(tmp_path: Path) -> None:
    path = write(tmp_path, line(scenario("a")), "{")

    with pytest.raises(SuiteInvalid) as excinfo:
        load_suite(path)

    error = excinfo.value
    assert error.code == "suite_invalid"
    assert error.line_count == 2
    assert error.suite_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert error.details == {
        "path": str(path),
        "invalidLines": [
            {
                "line": 2,
                "errors": [
                    {
                        "path": "$",
                        "message": "invalid JSON: Expecting property name enclosed "
                        "in double quotes at column 2",
                    }
                ],
            }
        ],
    }
    assert str(error) == f"{path}: 1 invalid line(s): 2"


@pytest.mark.parametrize(
    ("where", "expected_path"),
    [
        (lambda d: d, "$.surprise"),
        (lambda d: d["stimulus"], "$.stimulus.surprise"),
        (lambda d: d["oracle"], "$.oracle.surprise"),
        (lambda d: d["frame"], "$.frame.surprise"),
        (lambda d: d["frame"]["facts"], "$.frame.facts.surprise"),
        (lambda d: d["frame"]["facts"]["bot"], "$.frame.facts.bot.surprise"),
        (
            lambda d: d["frame"]["facts"]["bot"]["position"],
            "$.frame.facts.bot.position.surprise",
        ),
        (
            lambda d: d["frame"]["facts"]["bot"]["inventorySummary"][0],
            "$.frame.facts.bot.inventorySummary[0].surprise",
        ),
        (lambda d: d["frame"]["facts"]["world"], "$.frame.facts.world.surprise"),
        (
            lambda d: d["frame"]["facts"]["world"]["nearbyEntities"][0],
            "$.frame.facts.world.nearbyEntities[0].surprise",
        ),
        (lambda d: d["frame"]["deltas"][0], "$.frame.deltas[0].surprise"),
        (lambda d: d["frame"]["memory"], "$.frame.memory.surprise"),
        (
            lambda d: d["frame"]["memory"]["episodic"][0],
            "$.frame.memory.episodic[0].surprise",
        ),
        (
            lambda d: d["frame"]["memory"]["semantic"][0],
            "$.frame.memory.semantic[0].surprise",
        ),
    ],
)
def test_ev_c2_unknown_property_is_an_error_at_every_level(
    tmp_path: Path, where: Any, expected_path: str
) -> None:
    doc = scenario("a")
    doc["frame"]["deltas"] = [{"type": "hunger_change", "value": -1}]
    doc["frame"]["memory"] = {
        "episodic": [{"timestampMs": 1, "text": "ate"}],
        "semantic": [{"key": "home", "text": "cabin"}],
    }
    where(doc)["surprise"] = True

    (bad,) = invalid_lines(write(tmp_path, line(doc)))

    assert bad.errors == (
        SchemaProblem(expected_path, "unknown_property", "unknown property: surprise"),
    )


def test_ev_c2_duplicate_scenario_id_is_reported_on_the_later_line(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path, line(scenario("a")), line(scenario("b")), "", line(scenario("a"))
    )

    assert invalid_lines(path) == (
        InvalidLine(
            line=4,
            errors=(
                SchemaProblem(
                    "$.scenario_id",
                    "duplicate_scenario_id",
                    "duplicate scenario_id 'a' (first defined on line 1)",
                ),
            ),
        ),
    )


def test_ev_c2_duplicate_is_reported_with_the_line_schema_problems(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        line(scenario("a")),
        line(scenario("a", oracle={"oracle_version": "x"})),
    )

    ((number, codes),) = [
        (i.line, [e.code for e in i.errors]) for i in invalid_lines(path)
    ]

    assert (number, codes) == (2, ["pattern", "duplicate_scenario_id"])


@pytest.mark.parametrize(
    ("raw", "code", "message"),
    [
        (b"[1, 2]", "type", '[1, 2] is not of type "object"'),
        (b"null", "type", 'null is not of type "object"'),
        (
            b'\xef\xbb\xbf{"a": 1}',
            "invalid_json",
            "invalid JSON: the line starts with a UTF-8 byte-order mark "
            "(save the file as UTF-8 without BOM)",
        ),
        (b'{"x": NaN}', "invalid_json", "invalid JSON: NaN is not a JSON number"),
        (b'{"x": "\xff"}', "invalid_utf8", "not valid UTF-8 at byte 8"),
    ],
)
def test_ev_c2_non_scenario_lines_are_reported(
    tmp_path: Path, raw: bytes, code: str, message: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(scenario("ok")).encode() + b"\n" + raw + b"\n")

    (bad,) = invalid_lines(path)

    assert (bad.line, bad.errors) == (2, (SchemaProblem("$", code, message),))


def test_strength_outside_zero_to_one_is_an_error(tmp_path: Path) -> None:
    doc = scenario("a")
    doc["stimulus"]["strength"] = 1.5

    (bad,) = invalid_lines(write(tmp_path, line(doc)))

    assert bad.errors == (
        SchemaProblem(
            "$.stimulus.strength", "maximum", "1.5 is greater than the maximum of 1"
        ),
    )


def test_empty_suite_is_invalid_as_a_whole(tmp_path: Path) -> None:
    path = write(tmp_path, "", "  ")

    assert invalid_lines(path) == (
        InvalidLine(
            line=0,
            errors=(SchemaProblem("$", "empty_suite", "suite has no scenarios"),),
        ),
    )


def test_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound) as excinfo:
        load_suite(tmp_path / "nope.jsonl")

    assert excinfo.value.code == "suite_not_found"


# ---------------------------------------------------------------- parsing


def test_scenario_fields_are_parsed(tmp_path: Path) -> None:
    doc = scenario(
        "idle:x.1",
        stimulus={
            "kind": "eval_poke",
            "strength": 1,
            "action_affordance": "expected",
            "notes": "poked",
        },
        oracle={"oracle_version": "v12", "notes": "expect a goal"},
        tags=["a", "b"],
    )
    path = write(tmp_path, "", line(doc))

    (parsed,) = load_suite(path).scenarios

    assert parsed.scenario_id == "idle:x.1"
    assert parsed.stimulus.kind is StimulusKind.EVAL_POKE
    assert parsed.stimulus.strength == 1.0
    assert parsed.stimulus.action_affordance is ActionAffordance.EXPECTED
    assert parsed.stimulus.notes == "poked"
    assert parsed.oracle.oracle_version == "v12"
    assert parsed.version == "v12"
    assert parsed.oracle.notes == "expect a goal"
    assert parsed.tags == ("a", "b")
    assert parsed.line == 2
    assert parsed.frame_doc == doc["frame"]
    assert parsed.scenario_sha256 == digest(doc)
    assert scenario_to_wire(parsed) == doc


def test_scenario_sha256_ignores_formatting_and_key_order(tmp_path: Path) -> None:
    doc = scenario("a")
    compact = json.dumps(doc, separators=(",", ":"))
    reordered = json.dumps(dict(reversed(list(doc.items()))), indent=None)

    first = load_suite(write(tmp_path, compact, name="one.jsonl")).scenarios[0]
    second = load_suite(write(tmp_path, reordered, name="two.jsonl")).scenarios[0]

    assert first.scenario_sha256 == second.scenario_sha256 == digest(doc)


def test_crlf_is_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "win.jsonl"
    path.write_bytes(
        line(scenario("a")).encode()
        + b"\r\n\r\n"
        + line(scenario("b")).encode()
        + b"\r\n"
    )

    loaded = load_suite(path)

    assert [(s.scenario_id, s.line) for s in loaded.scenarios] == [("a", 1), ("b", 3)]
    assert loaded.line_count == 2


def test_ev_c2_byte_order_mark_is_refused_as_upstream_does(tmp_path: Path) -> None:
    # The upstream harness keeps the mark when it reads the file, so its
    # first line is no JSON there: a suite that loads here must load there.
    path = tmp_path / "bom.jsonl"
    data = b"\xef\xbb\xbf" + line(scenario("a")).encode() + b"\r\n"
    path.write_bytes(data)

    (bad,) = invalid_lines(path)

    assert (bad.line, [e.code for e in bad.errors]) == (1, ["invalid_json"])
    assert "byte-order mark" in bad.errors[0].message


@given(
    layout=st.lists(
        st.sampled_from(["scenario", "", " ", "\t", "  \t "]), min_size=1, max_size=30
    ).filter(lambda xs: "scenario" in xs)
)
def test_line_numbers_are_physical_and_line_count_skips_blanks(
    layout: list[str],
) -> None:
    rows = [
        line(scenario(f"s{i}")) if kind == "scenario" else kind
        for i, kind in enumerate(layout)
    ]
    data = "\n".join(rows).encode()

    loaded = parse_suite(data, path=Path("mem.jsonl"))

    expected = [(f"s{i}", i + 1) for i, kind in enumerate(layout) if kind == "scenario"]
    assert [(s.scenario_id, s.line) for s in loaded.scenarios] == expected
    assert loaded.line_count == len(expected)


def test_load_suite_does_not_cache(tmp_path: Path) -> None:
    path = write(tmp_path, line(scenario("a")))
    assert load_suite(path) is not load_suite(path)
    path.write_text(line(scenario("z")) + "\n", encoding="utf-8")

    assert [s.scenario_id for s in load_suite(path).scenarios] == ["z"]


# ---------------------------------------------------------------- schema


def test_scenario_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))

    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith("scenario.v1.schema.json")


_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "examples"}


def _normalise(node: Any, root: dict[str, Any]) -> Any:
    """A schema with local ``$ref``s inlined and annotations dropped."""
    if isinstance(node, dict):
        if "$ref" in node and str(node["$ref"]).startswith("#/"):
            target: Any = root
            for part in node["$ref"][2:].split("/"):
                target = target[part]
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return _normalise({**copy.deepcopy(target), **rest}, root)
        return {
            k: _normalise(v, root)
            for k, v in node.items()
            if k not in _ANNOTATIONS and k != "$defs"
        }
    if isinstance(node, list):
        return [_normalise(v, root) for v in node]
    return node


def _sorted_enums(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: sorted(v, key=json.dumps)
            if k in ("enum", "required") and isinstance(v, list)
            else _sorted_enums(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_sorted_enums(v) for v in node]
    return node


def test_frame_part_matches_the_stream_frame_schema() -> None:
    if not STREAM_FRAME_SCHEMA.exists():
        pytest.skip(
            "stream/core/schemas/frame.v1.schema.json does not exist yet; the "
            "scenario schema's frame part is compared with it once it does"
        )
    ours = json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))
    theirs = json.loads(STREAM_FRAME_SCHEMA.read_text(encoding="utf-8"))

    our_frame = _normalise(ours["$defs"]["frame"], ours)
    their_frame = _normalise(theirs, theirs)
    limits = _pop_max_items(our_frame)
    bot = our_frame["properties"]["facts"]["properties"]["bot"]["properties"]
    for field in ("health", "hunger"):
        assert bot[field]["type"] == "integer"
        bot[field]["type"] = "number"

    # A suite frame is a live frame with the upstream scenario schema's limits.
    assert limits == {
        "facts.bot.inventorySummary": 128,
        "facts.world.nearbyEntities": 64,
        "deltas": 64,
        "memory.episodic": 16,
        "memory.semantic": 16,
    }
    assert _sorted_enums(our_frame) == _sorted_enums(their_frame)


def _pop_max_items(node: Any, path: str = "") -> dict[str, int]:
    """Remove every ``maxItems`` of a frame schema; their values by field."""
    found: dict[str, int] = {}
    if not isinstance(node, dict):
        return found
    if "maxItems" in node:
        found[path] = node.pop("maxItems")
    for name, child in node.get("properties", {}).items():
        found |= _pop_max_items(child, f"{path}.{name}" if path else name)
    return found


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_ev_c2_frame_seen_valid_before_does_not_hide_other_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    """A frame validated once is not validated again, but a line with that
    frame and a bad stimulus, or with one field of that frame broken, still
    gets the full problem list (with the compiled validator and without)."""
    import evals.core.suites as suites_module

    if not compiled:
        monkeypatch.setattr(suites_module, "_compiled_validator", lambda: None)
    load_suite(write(tmp_path, line(scenario("a")), name="warm.jsonl"))
    broken_frame = scenario("c")
    broken_frame["frame"]["facts"]["bot"]["health"] = -1
    path = write(
        tmp_path,
        line(scenario("b", stimulus={"kind": "nightfall", "strength": 2})),
        line(broken_frame),
        line(scenario("d")),
    )

    lines = invalid_lines(path)

    assert [(i.line, [p.path for p in i.errors]) for i in lines] == [
        (1, ["$.stimulus", "$.stimulus.strength"]),
        (2, ["$.frame.facts.bot.health"]),
    ]


@pytest.mark.parametrize(
    "overrides",
    [
        {"scenario_id": "Upper"},
        {"scenario_id": "a" * 129},
        {"oracle": {"oracle_version": "1"}},
        {"oracle": {"oracle_version": "v1", "extra": 1}},
        {"stimulus": {"kind": "nightfall", "strength": 1.5}},
        {"stimulus": {"kind": "x", "strength": 0.5, "action_affordance": "allowed"}},
        {"tags": [""]},
        {"tags": ["t"] * 33},
        {"frame": {"facts": {}}},
        {"frame": {"facts": {"bot": {}, "world": {}}, "extra": True}},
        {"unknown": 1},
    ],
)
def test_ev_c2_compiled_check_never_passes_what_jsonschema_refuses(
    overrides: dict[str, Any],
) -> None:
    from core.schemas import load_validator, validate
    from evals.core.suites import SCENARIO_SCHEMA, _compiled_validator

    doc = {**scenario("s1"), **overrides}

    assert validate(load_validator("evals.core", SCENARIO_SCHEMA), doc) != []
    assert _compiled_validator().is_valid(doc) is False
