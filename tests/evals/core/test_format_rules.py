"""The shared format rules: the JSON document reader and safe path segments.

``parse_json_document`` reads canonical bytes (what the store writes) with
orjson and everything else with ``json.loads``; both must give the same
answer, value or problems, for any bytes. The stdlib reader is the reference:
the same function with the orjson path switched off.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import SchemaInvalid
from core.text import NAME_MAX_BYTES, name_problem
from evals.core import format_rules
from evals.core.format_rules import is_safe_path_segment, parse_json_document
from evals.core.store import store_json_bytes
from evals.core.store_reader import load_store
from evals.examples import example_manifest, example_shadow_record


@contextmanager
def stdlib_only() -> Iterator[None]:
    """``parse_json_document`` as it reads without orjson: ``json.loads``."""
    with mock.patch.object(
        format_rules, "_read_canonical", return_value=format_rules._NO_VALUE
    ):
        yield


def answer(data: bytes | str) -> tuple[str, Any]:
    """What the reader answers, comparable across readers: the value as
    text that keeps int/float/bool apart and key order, or the problems."""
    try:
        value = parse_json_document(data, what="f.json")
    except SchemaInvalid as error:
        return "refused", [(p.path, p.code, p.message) for p in error.problems]
    return "value", json.dumps(value)


def stdlib_answer(data: bytes | str) -> tuple[str, Any]:
    with stdlib_only():
        return answer(data)


def canonical_text(value: Any) -> str:
    """``store_json_bytes``' text, NaN and lone surrogates allowed."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    ("data", "value"),
    [
        # duplicate keys: the last one wins, at the first key's place
        (b'{\n  "a": 1,\n  "b": 2,\n  "a": 3\n}\n', {"a": 3, "b": 2}),
        (b'{"a": 1, "a": 2}', {"a": 2}),
        # a BOM before canonical bytes
        (b'\xef\xbb\xbf{\n  "a": 1\n}\n', {"a": 1}),
        # NaN and Infinity parse (validators refuse them as numbers)
        (b'{\n  "a": NaN,\n  "b": -Infinity\n}\n', {"a": math.nan, "b": -math.inf}),
        # the stdlib writes 1e-05 where orjson writes 0.00001
        (b'{\n  "a": 1e-05\n}\n', {"a": 1e-05}),
        (b"-0\n", 0),
        (b"1E400\n", math.inf),
        # valid but not canonical
        (b'{"a":[1,2.5,"x"]}', {"a": [1, 2.5, "x"]}),
        (b'  {"a": 1}  ', {"a": 1}),
        (b'{\n    "a": 1\n}\n', {"a": 1}),
        (b'{\n  "a": "\\u00e9"\n}\n', {"a": "é"}),
        # the largest integers a 64-bit column takes
        (b"9223372036854775807\n", 2**63 - 1),
        (b"-9223372036854775808\n", -(2**63)),
    ],
)
def test_edge_documents_read_as_json_loads_reads_them(data: bytes, value: Any) -> None:
    assert answer(data) == stdlib_answer(data)
    assert answer(data) == ("value", json.dumps(value))


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        (
            b"9223372036854775808\n",
            [("$", "unstorable", "integer is out of range (64-bit signed)")],
        ),
        (  # orjson reads it, as an unsigned 64-bit integer
            b'{\n  "a": 18446744073709551615\n}\n',
            [("$.a", "unstorable", "integer is out of range (64-bit signed)")],
        ),
        (  # orjson reads it as a float
            b'{\n  "a": [\n    99999999999999999999\n  ]\n}\n',
            [("$.a[0]", "unstorable", "integer is out of range (64-bit signed)")],
        ),
        (
            b"-9223372036854775809\n",
            [("$", "unstorable", "integer is out of range (64-bit signed)")],
        ),
        (
            b'{\n  "a": "x\\u0000"\n}\n',
            [("$.a", "unstorable", "value contains a NUL character (\\u0000)")],
        ),
        (
            b'{\n  "\\u0000": 1\n}\n',
            [("$.\\u0000", "unstorable", "key contains a NUL character (\\u0000)")],
        ),
        (
            b'{\n  "a": "\\ud800"\n}\n',
            [("$.a", "unstorable", "value contains a lone surrogate (\\ud800)")],
        ),
        (  # json.loads reads UTF-8 bytes with surrogatepass
            b'"\xed\xa0\x80"\n',
            [("$", "unstorable", "value contains a lone surrogate (\\ud800)")],
        ),
    ],
)
def test_unstorable_values_are_reported_by_path(
    data: bytes, problems: list[tuple[str, str, str]]
) -> None:
    assert answer(data) == ("refused", problems)
    assert stdlib_answer(data) == ("refused", problems)


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b'{"a": 1} x', b"\xff", b"[1,]", b"{}\x0c"],
)
def test_invalid_json_gets_the_same_message(data: bytes) -> None:
    assert answer(data) == stdlib_answer(data)
    assert answer(data)[1][0][1] == "invalid_json"


def nested_lists_text(depth: int) -> str:
    """``canonical_text`` of ``depth`` nested lists, written without
    recursion: ``json.dumps(indent=2)`` recurses in Python before 3.13 and
    runs out of stack past ~900 levels there."""
    opening = ["  " * level + "[" for level in range(depth - 1)]
    closing = ["  " * level + "]" for level in reversed(range(depth - 1))]
    return "\n".join([*opening, "  " * (depth - 1) + "[]", *closing]) + "\n"


def test_nested_lists_text_is_the_canonical_text() -> None:
    for depth in (1, 2, 3, 200):
        value = json.loads("[" * depth + "]" * depth)
        assert nested_lists_text(depth) == canonical_text(value)


def test_nesting_orjson_refuses_or_cannot_write_reads_like_json_loads() -> None:
    for depth in (200, 300, 1100):
        data = nested_lists_text(depth).encode()
        assert answer(data) == stdlib_answer(data)


def test_canonical_store_bytes_take_the_orjson_path() -> None:
    """The store's own files never reach ``json.loads``."""
    documents = [
        example_shadow_record("0123456789abcdef"),
        {"a": [1, -2, 2.5, 1e16, True, None, {}, []], "é": "記憶 \u2028 \x7f\x1f"},
        {"big": 2**63 - 1, "small": -(2**63)},
    ]
    with mock.patch.object(format_rules, "_parse_json", side_effect=AssertionError):
        for document in documents:
            assert parse_json_document(store_json_bytes(document), what="f") == (
                document
            )


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**65), 2**65),
    st.sampled_from([2**53, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63) - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(st.characters(codec=None), max_size=6),
    st.sampled_from(["\x00", "\ud800", "\udfff x", "\\u0000", "1" * 19, "\ufeff"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(st.characters(codec=None), max_size=3), inner)
    ),
    max_leaves=8,
)


def _encodings(value: Any) -> list[bytes]:
    canonical = canonical_text(value)
    return [
        canonical.encode("utf-8", "surrogatepass"),
        b"\xef\xbb\xbf" + canonical.encode("utf-8", "surrogatepass"),
        (json.dumps(value, indent=2) + "\n").encode(),
        json.dumps(value).encode(),
        json.dumps(value, separators=(",", ":")).encode(),
        canonical.rstrip("\n").encode("utf-8", "surrogatepass"),
    ]


# Slow by design: 400 generated values read by both readers.
@settings(max_examples=400)
@given(_values)
def test_the_fast_reader_agrees_with_the_stdlib_reader_on_any_value(
    value: Any,
) -> None:
    for data in _encodings(value):
        assert answer(data) == stdlib_answer(data), data


# Slow by design: 300 generated documents read by both readers.
@settings(max_examples=300)
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c"]), _values, min_size=1),
    st.sampled_from(["a", "b", "c"]),
    _values,
)
def test_duplicate_keys_read_as_json_loads_reads_them(
    document: dict[str, Any], key: str, again: Any
) -> None:
    text = canonical_text(document)
    duplicate = text[: text.rindex("}")].rstrip() + (
        f',\n  "{key}": {json.dumps(again)}\n}}\n'
    )
    data = duplicate.encode("utf-8", "surrogatepass")
    assert answer(data) == stdlib_answer(data)


@settings(max_examples=300)
@given(st.binary(max_size=40) | st.text(max_size=20).map(str.encode))
def test_the_fast_reader_agrees_with_the_stdlib_reader_on_any_bytes(
    data: bytes,
) -> None:
    assert answer(data) == stdlib_answer(data)


def _safe_segment_by_the_rules(value: str) -> bool:
    return (
        0 < len(value) <= format_rules.SAFE_SEGMENT_MAX_CHARS
        and value not in (".", "..")
        and not value.isspace()
        and not any(char in "/\\" for char in value)
        and not any(unicodedata.category(char) == "Cc" for char in value)
        and name_problem(value) is None
        and len(value.encode("utf-8", "surrogatepass")) <= NAME_MAX_BYTES
    )


@pytest.mark.parametrize("code", range(128))
def test_ascii_segments_follow_the_rules(code: int) -> None:
    char = chr(code)
    for value in (char, f"a{char}b", char * 3, f"{char}x" * 100):
        assert is_safe_path_segment(value) == _safe_segment_by_the_rules(value)


@given(st.text(st.characters(codec=None), max_size=12))
def test_segments_follow_the_rules(value: str) -> None:
    assert is_safe_path_segment(value) == _safe_segment_by_the_rules(value)


# --- nesting depth: one limit, the same answer on every Python version -------


def nested(depth: int) -> Any:
    """``depth`` lists inside one another around a 0, built without recursion."""
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def nested_text(depth: int) -> bytes:
    return b"[" * depth + b"0" + b"]" * depth


TOO_DEEP = "x.json is not valid JSON: nests too deep (more than 512 levels)"


def test_max_json_depth_is_512() -> None:
    assert format_rules.MAX_JSON_DEPTH == 512
    assert format_rules.json_depth(nested(512)) == 512
    assert format_rules.json_depth({"a": [{}], "b": 1}) == 3
    assert format_rules.json_depth(7) == 0
    assert format_rules.json_depth({"a": ((1,),)}) == 3


@pytest.mark.parametrize("reader", ["orjson", "stdlib"])
def test_a_document_at_the_depth_limit_is_read_and_written(reader: str) -> None:
    document = {"schemaVersion": 1, "x": nested(511)}  # 512 levels in all
    with stdlib_only() if reader == "stdlib" else nullcontext():
        assert parse_json_document(json.dumps(document).encode(), what="x.json") == (
            document
        )
        written = store_json_bytes(document)
        assert parse_json_document(written, what="x.json") == document


@pytest.mark.parametrize("depth", [513, 600, 1_000, 1_500, 5_000, 9_000, 100_000])
@pytest.mark.parametrize("reader", ["orjson", "stdlib"])
def test_json_max_depth_refuses_deeper_documents_alike(depth: int, reader: str) -> None:
    """Python 3.12 gave up somewhere between 1,500 and 9,000 levels and 3.13
    read them all; now both refuse everything past 512 with one message."""
    with stdlib_only() if reader == "stdlib" else nullcontext():
        for data in (nested_text(depth), nested_text(depth).decode()):
            with pytest.raises(SchemaInvalid) as caught:
                parse_json_document(data, what="x.json")
            assert [(p.path, p.code, p.message) for p in caught.value.problems] == [
                ("$", "invalid_json", TOO_DEEP)
            ]


def test_json_max_depth_refuses_canonical_text_past_the_limit() -> None:
    """Text laid out as the store writes it (2-space indent) is no exception."""
    data = (json.dumps({"x": nested(512)}, indent=2) + "\n").encode()

    with pytest.raises(SchemaInvalid) as caught:
        parse_json_document(data, what="x.json")

    assert caught.value.problems[0].message == TOO_DEEP


@pytest.mark.parametrize("depth", [513, 950, 2_000, 100_000])
def test_json_max_depth_store_json_bytes_refuses_instead_of_recursion_error(
    depth: int,
) -> None:
    with pytest.raises(SchemaInvalid) as caught:
        store_json_bytes({"x": nested(depth - 1)})

    assert [(p.path, p.code, p.message) for p in caught.value.problems] == [
        (
            "$",
            "too_deep",
            "document nests too deep to be written (more than 512 levels)",
        )
    ]


def test_number_problems_reads_a_deep_value_without_recursion() -> None:
    problems = format_rules.number_problems({"x": nested(100_000), "y": [1e300]})

    assert [(p.path, p.code) for p in problems] == [("$.y[0]", "out_of_range")]


def test_json_max_depth_a_deep_store_file_is_one_invalid_manifest(
    tmp_path: Path,
) -> None:
    pack = tmp_path / "benchmarks" / "deep"
    pack.mkdir(parents=True)
    manifest = {**example_manifest(), "benchmarkId": "deep", "x": nested(600)}
    (pack / "manifest.json").write_text(json.dumps(manifest))

    contents = load_store(tmp_path)

    assert [
        (item.path, [p.message for p in item.problems])
        for item in contents.invalid_manifests
    ] == [
        (
            "benchmarks/deep/manifest.json",
            [
                "benchmarks/deep/manifest.json is not valid JSON: nests too deep "
                "(more than 512 levels)"
            ],
        )
    ]


def test_the_format_schemas_state_the_number_bounds() -> None:
    """The JSON Schemas (and so the API schema) carry the core's bounds."""
    from core.schemas import load_validator

    def schema(name: str) -> Any:
        return load_validator("evals.core", f"{name}.v1.schema.json").schema

    limit, cases = format_rules.NUMBER_LIMIT, format_rules.CASE_COUNT_LIMIT
    signed = {"type": "number", "minimum": -limit, "maximum": limit}
    shadow, run, baseline = (
        schema("shadow_record"),
        schema("run_summary"),
        schema("baseline_snapshot"),
    )
    assert shadow["$defs"]["nonNegative"] == {
        "type": "number",
        "minimum": 0,
        "maximum": limit,
    }
    assert run["$defs"]["count"]["maximum"] == cases
    assert run["$defs"]["number"] == signed
    assert (
        run["properties"]["caseResults"]["items"]["properties"]["durationMs"]["maximum"]
        == limit
    )
    entry = baseline["properties"]["benchmarks"]["items"]["properties"]
    assert entry["totalCases"]["maximum"] == cases
    assert entry["metrics"]["additionalProperties"] == signed
