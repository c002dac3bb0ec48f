"""Shadow recall records: every rule and message, raw text refused, fast path."""

from __future__ import annotations

import copy
import json
import math
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import SchemaInvalid
from core.text import unstorable_values
from evals.core import format_rules, shadow
from evals.core.format_rules import is_safe_path_segment, parse_timestamp
from evals.core.formats_types import RecallMode, RecallSource
from evals.core.shadow import (
    shadow_record_problems,
    shadow_relative_path,
    validate_shadow_record,
)
from evals.examples import example_shadow_record
from tests.json_strategies import Change, changed, changes, json_values

SEED_SHADOW: dict[str, Any] = example_shadow_record("3f3ec9f5b356c1f2")
NUMBER_FIELDS = [
    "promptLength",
    "retrievalQueryLength",
    "recallResultLimit",
    "recalledMemoryCount",
    "contextChars",
    "durationMs",
]
STRING_FIELDS = [
    "traceId",
    "recordedAt",
    "sessionKey",
    "promptHash",
    "retrievalQueryHash",
]


def with_changes(**changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(SEED_SHADOW)
    for key, value in changes.items():
        if value is ...:
            document.pop(key, None)
        else:
            document[key] = value
    return document


def problems_of(document: Any) -> list[tuple[str, str]]:
    with pytest.raises(SchemaInvalid) as caught:
        validate_shadow_record(document)
    return [(p.path, p.message) for p in caught.value.problems]


def test_seed_record_is_valid_and_round_trips() -> None:
    record = validate_shadow_record(SEED_SHADOW)

    assert record.recall_mode is RecallMode.FULL
    assert record.source is RecallSource.HOT_QMD
    assert record.memory_ids == ("mem-1", "mem-2")
    assert record.to_wire() == SEED_SHADOW


def test_record_lives_under_its_day() -> None:
    record = validate_shadow_record(SEED_SHADOW)

    assert shadow_relative_path(record) == "shadow/2026-03-06/3f3ec9f5b356c1f2.json"


def test_day_is_recorded_at_prefix_even_with_an_offset() -> None:
    record = validate_shadow_record(
        with_changes(recordedAt="2026-03-06T23:30:00-05:00")
    )

    assert record.day == "2026-03-06"


def test_broken_record_reports_every_missing_field() -> None:
    assert problems_of({"schemaVersion": 1}) == sorted(
        [(f"$.{name}", f"{name} must be a non-empty string") for name in STRING_FIELDS]
        + [
            (f"$.{name}", f"{name} must be a non-negative number")
            for name in NUMBER_FIELDS
        ]
        + [
            ("$.injected", "injected must be a boolean"),
            ("$.memoryIds", "memoryIds must be an array of non-empty strings"),
            ("$.recallMode", "recallMode must be a non-empty string"),
            ("$.source", "source must be a non-empty string"),
        ]
    )


@pytest.mark.parametrize("field", ["prompt", "promptText", "memoryContent", "context"])
def test_raw_text_fields_are_refused(field: str) -> None:
    assert problems_of(with_changes(**{field: "the raw prompt"})) == [
        (f"$.{field}", f"unknown property: {field}")
    ]


@pytest.mark.parametrize("mode", ["no_recall", "minimal", "full", "graph_mode"])
def test_all_recall_modes_are_accepted(mode: str) -> None:
    assert validate_shadow_record(with_changes(recallMode=mode)).recall_mode == mode


def test_recall_mode_must_be_one_of_four() -> None:
    assert problems_of(with_changes(recallMode="maximal")) == [
        ("$.recallMode", "recallMode must be one of no_recall|minimal|full|graph_mode")
    ]


@pytest.mark.parametrize(
    "source", ["none", "hot_qmd", "hot_embedding", "cold_fallback", "recent_scan"]
)
def test_all_sources_are_accepted(source: str) -> None:
    assert validate_shadow_record(with_changes(source=source)).source == source


def test_source_must_be_one_of_five() -> None:
    assert problems_of(with_changes(source="warm")) == [
        (
            "$.source",
            "source must be one of "
            "none|hot_qmd|hot_embedding|cold_fallback|recent_scan",
        )
    ]


@pytest.mark.parametrize("field", NUMBER_FIELDS)
@pytest.mark.parametrize("value", [-1, -0.5, "1", None, False, math.inf, math.nan])
def test_numbers_must_be_non_negative(field: str, value: Any) -> None:
    assert problems_of(with_changes(**{field: value})) == [
        (f"$.{field}", f"{field} must be a non-negative number")
    ]


def test_fractional_numbers_are_kept() -> None:
    record = validate_shadow_record(with_changes(durationMs=22.75))

    assert record.duration_ms == 22.75


@pytest.mark.parametrize("value", ["true", 1, None])
def test_injected_must_be_a_boolean(value: Any) -> None:
    assert problems_of(with_changes(injected=value)) == [
        ("$.injected", "injected must be a boolean")
    ]


@pytest.mark.parametrize(
    ("value", "path"),
    [("mem-1", "$.memoryIds"), (["ok", ""], "$.memoryIds[1]"), ([3], "$.memoryIds[0]")],
)
def test_memory_ids_must_be_non_empty_strings(value: Any, path: str) -> None:
    assert problems_of(with_changes(memoryIds=value)) == [
        (path, "memoryIds must be an array of non-empty strings")
    ]


@pytest.mark.parametrize("trace_id", ["..", "a/b", "c\\d"])
def test_trace_id_must_be_a_safe_path_segment(trace_id: str) -> None:
    assert problems_of(with_changes(traceId=trace_id)) == [
        ("$.traceId", "traceId must be a safe path segment")
    ]


def test_recorded_at_must_be_a_timestamp() -> None:
    assert problems_of(with_changes(recordedAt="2026-03-06")) == [
        ("$.recordedAt", "recordedAt must be a valid ISO timestamp")
    ]


@pytest.mark.parametrize("field", ["sessionKey", "promptHash", "retrievalQueryHash"])
def test_hashes_and_keys_must_be_non_empty(field: str) -> None:
    assert problems_of(with_changes(**{field: " "})) == [
        (f"$.{field}", f"{field} must be a non-empty string")
    ]


def test_schema_version_must_be_1() -> None:
    assert problems_of(with_changes(schemaVersion=2)) == [
        ("$.schemaVersion", "schemaVersion must be 1")
    ]


def test_record_must_be_an_object() -> None:
    assert problems_of([SEED_SHADOW]) == [
        ("$", "eval shadow recall record must be an object")
    ]


# --- the fast path is never looser than the schema ----------------------------

_json_value = json_values(
    max_int=50, words=["", " ", "x", "full", "hot_qmd", "..", "2026-03-06T10:00:00Z"]
)
_keys = sorted(shadow._KEYS | {"extra"})


@settings(max_examples=400)
@given(change=changes(_keys, _json_value))
def test_fast_path_accepts_only_valid_documents(change: Change) -> None:
    document = changed(SEED_SHADOW, change)

    if shadow.fast_valid(document):
        assert shadow_record_problems(document) == []


def test_fast_path_takes_the_seed_example() -> None:
    assert shadow.fast_valid(copy.deepcopy(SEED_SHADOW))


# --- the ingest's fast path: the validated wire form, storable text only ------

_hostile_text = st.sampled_from(
    ["a\x00b", "\ud800", "x\udfff", "caf\u00e9", "\u200b", "a/b", "a\\b", "\x7f", "  "]
)
_hostile_number = st.sampled_from(
    [
        *(2**53 - 1, 2**53, float(2**53 - 1), float(2**53), 1e300),
        *(2**63 - 1, 2**63, 10**400, -1, 0.5, -0.0, math.inf, 1e308, True),
    ]
)


@settings(max_examples=400)
@given(change=changes(_keys, _json_value | _hostile_text | _hostile_number))
def test_fast_wire_is_the_validated_storable_wire_form(change: Change) -> None:
    document = changed(SEED_SHADOW, change)

    fast = shadow.fast_wire(document)
    if fast is not None:
        wire, recorded_at = fast
        expected = validate_shadow_record(document).to_wire()
        assert list(wire.items()) == list(expected.items())
        assert unstorable_values(document) == []
        assert recorded_at == parse_timestamp(document["recordedAt"])
    if shadow.fast_valid(document) and not unstorable_values(document):
        # Valid and storable: the fast path takes it.
        assert fast is not None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("sessionKey", "a\x00b"),
        ("promptHash", "x\ud800"),
        ("memoryIds", ["ok", "m\x00"]),
    ],
)
def test_fast_wire_leaves_unstorable_records_to_the_full_checks(
    field: str, value: Any
) -> None:
    document = dict(copy.deepcopy(SEED_SHADOW), **{field: value})
    assert shadow.fast_valid(document)
    assert shadow.fast_wire(document) is None


def test_fast_wire_takes_the_seed_example() -> None:
    wire, _ = shadow.fast_wire(copy.deepcopy(SEED_SHADOW)) or ({}, None)
    assert wire == validate_shadow_record(SEED_SHADOW).to_wire()


@settings(max_examples=500)
@given(
    st.text(max_size=260)
    | st.text(alphabet=st.characters(max_codepoint=127), max_size=260)
    | st.sampled_from([".", "..", "...", " ", "  a", "a" * 200, "a" * 201, "é" * 200])
)
def test_safe_segment_answers_as_the_full_check(value: str) -> None:
    assert shadow._safe_segment(value) == is_safe_path_segment(value)


# --- batch bodies decoded straight into records (msgspec) --------------------


def _body_bytes(value: Any, style: int) -> bytes:
    """``value`` as a client might write it: compact or spaced, escaped or
    UTF-8 (lone surrogates as the invalid bytes a careless client sends),
    keys in the wire order or reversed."""
    if style & 4:
        value = {
            "records": [
                dict(reversed(list(r.items()))) if isinstance(r, dict) else r
                for r in value["records"]
            ]
        }
    text = json.dumps(
        value,
        ensure_ascii=bool(style & 1),
        separators=(",", ":") if style & 2 else (", ", ": "),
    )
    return text.encode("utf-8", "surrogatepass")


_record_changes = changes(
    _keys,
    _json_value
    | _hostile_text
    | _hostile_number
    | st.floats(min_value=0, allow_nan=False)
    | st.text(max_size=4),
)


def _same_json(left: Any, right: Any) -> bool:
    """Equal values, types (1 is not 1.0, -0.0 is not 0.0) and key order."""
    return json.dumps(left) == json.dumps(right)


# Aimed at the checks made after decoding and at the numbers' bounds.
_aimed_changes = st.tuples(
    st.just([]),
    st.dictionaries(
        st.sampled_from([*STRING_FIELDS, "memoryIds"]),
        _hostile_text
        | st.sampled_from(["\u00a0", "\t\n", "\u3000x", "2026-03-06T10:00:00"])
        | st.lists(_hostile_text, min_size=1, max_size=2),
        min_size=1,
        max_size=2,
    )
    | st.dictionaries(
        st.sampled_from(NUMBER_FIELDS),
        _hostile_number
        | st.integers(2**53 - 2, 2**53 + 1)
        | st.integers(2**63 - 2, 2**63 + 1)
        | st.floats(0, 1e20),
        min_size=1,
        max_size=2,
    ),
)


# Slow by design: many generated batches, decoded by both readers.
@settings(max_examples=600)
@given(
    batch=st.lists(
        st.one_of(st.just(([], {})), _record_changes, _aimed_changes),
        min_size=1,
        max_size=3,
    ),
    style=st.integers(0, 7),
)
def test_decoded_batch_is_exactly_what_fast_wire_takes(
    batch: list[Change], style: int
) -> None:
    documents = [changed(SEED_SHADOW, change) for change in batch]
    body = _body_bytes({"records": documents}, style)

    checked = shadow.decode_shadow_batch(body)
    fast = [shadow.fast_wire(document) for document in documents]

    # Accepted if and only if the ingest's per-record fast path takes every
    # record; then the same wire forms (values, types, key order) and instants.
    assert (checked is not None) == all(item is not None for item in fast), body
    if checked is not None:
        assert len(checked.records) == len(documents)
        for (record, recorded_at), item in zip(checked.records, fast, strict=True):
            assert item is not None
            assert _same_json(shadow.wire_of(record), item[0])
            assert recorded_at == item[1]
        # And the values the standard library reads from the body (any key order).
        parsed = json.loads(body)["records"]
        wires = [shadow.wire_of(record) for record, _ in checked.records]
        assert json.dumps(parsed, sort_keys=True) == json.dumps(wires, sort_keys=True)


@settings(max_examples=600)
@given(
    change=st.one_of(st.just(([], {})), _record_changes, _aimed_changes),
    style=st.integers(0, 7),
)
def test_a_stored_record_is_vouched_for_exactly_when_fast_wire_takes_it(
    change: Change, style: int
) -> None:
    """What the CI gate counts without reading a file in full."""
    document = changed(SEED_SHADOW, change)
    body = _body_bytes({"records": [document]}, style)
    data = body[body.index(b"[") + 1 : body.rindex(b"]")]

    instant = shadow.stored_record_instant(data)
    fast = shadow.fast_wire(document)

    assert (instant is not None) == (fast is not None), data
    if fast is not None:
        assert instant == fast[1]
        read = json.dumps(json.loads(data), sort_keys=True)
        assert read == json.dumps(document, sort_keys=True)


def _batch_body(old: bytes, new: bytes) -> bytes:
    """A one-record batch body with ``old`` replaced by ``new``."""
    return json.dumps({"records": [SEED_SHADOW]}).encode().replace(old, new)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"[]",
        b"{}",
        b'{"records": []}',
        b'{"records": {}}',
        b'{"records": [], "x": 1}',
        b'{"records": null}',
        b"\xef\xbb\xbf" + json.dumps({"records": [SEED_SHADOW]}).encode(),
        json.dumps({"records": [SEED_SHADOW], "x": 1}).encode(),
        _batch_body(b"}]", b"}"),
        _batch_body(b'"mem-2"', b"2"),
        _batch_body(b'"mem-2"', b'" "'),
        _batch_body(b"42", b"1e400"),
        _batch_body(b"42", b"NaN"),
        _batch_body(b"42", b"-1"),
        _batch_body(b"42", b"9223372036854775808"),
        _batch_body(b'"agent:main"', b'"a\\u0000"'),
        _batch_body(b'"agent:main"', b'"\\ud800"'),
        _batch_body(b'"agent:main"', b'"\\u00a0\\u2003"'),
        _batch_body(b'"agent:main"', b'"\xed\xa0\x80"'),
        _batch_body(b'"3f3ec9f5b356c1f2"', b'"a/b"'),
        _batch_body(b'"schemaVersion": 1', b'"schemaVersion": 1.0'),
        _batch_body(b'"injected": true', b'"injected": 1'),
    ],
)
def test_decode_leaves_every_doubtful_body_to_the_full_checks(body: bytes) -> None:
    assert shadow.decode_shadow_batch(body) is None


def test_decode_takes_duplicate_keys_as_the_standard_library_does() -> None:
    body = json.dumps({"records": [SEED_SHADOW]}).encode()
    body = body.replace(b'"durationMs": ', b'"durationMs": 7, "durationMs": ')

    checked = shadow.decode_shadow_batch(body)

    assert checked is not None
    assert _same_json(
        [shadow.wire_of(record) for record, _ in checked.records],
        json.loads(body)["records"],
    )


def test_decode_takes_the_seed_example_in_any_key_order() -> None:
    documents = [SEED_SHADOW, dict(reversed(list(SEED_SHADOW.items())))]
    checked = shadow.decode_shadow_batch(json.dumps({"records": documents}).encode())

    assert checked is not None
    assert [shadow.wire_of(record) for record, _ in checked.records] == [
        SEED_SHADOW
    ] * 2


def test_decoded_literals_are_the_enums() -> None:
    hints = typing.get_type_hints(shadow.WireShadow)
    assert set(typing.get_args(hints["recallMode"])) == {m.value for m in RecallMode}
    assert set(typing.get_args(hints["source"])) == {s.value for s in RecallSource}
    assert list(shadow.WireShadow.__struct_fields__) == list(
        validate_shadow_record(SEED_SHADOW).to_wire()
    )


# Slow by design: many generated timestamps, read by both parsers.
@settings(max_examples=1000)
@given(
    st.from_regex(
        r"\A2[0-9]{3}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-6][0-9]:[0-6][0-9]"
        r"(\.[0-9]{0,10})?(Z|z|[+-][0-2][0-9]:[0-6][0-9]|[+-][0-9]{4})?\Z"
    )
    | st.from_regex(r"\A2[0-9]{3}-[01][0-9]-[0-3][0-9]T[0-9:.Z+-]{0,22}\Z")
    | st.text(alphabet="0123456789-:.TZ+ ", max_size=30)
)
def test_fast_timestamp_reads_as_parse_timestamp(value: str) -> None:
    assert format_rules.fast_timestamp(value) == parse_timestamp(value)
    if parse_timestamp(value) is not None:
        assert (
            format_rules.fast_timestamp(value).tzinfo == parse_timestamp(value).tzinfo
        )  # type: ignore[union-attr]
