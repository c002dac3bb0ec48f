"""The JSON writers give the standard library's text; orjson_writes_alike (core.canonical's guard) says yes only where orjson writes the same."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.json_bytes import (
    compact_json_text,
    indented_json_bytes,
    orjson_writes_alike,
    sorted_compact_json_text,
)


def reference_indented(document: Any) -> bytes:
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def reference_compact(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


class Colour(enum.StrEnum):
    RED = "red"


class Size(enum.IntEnum):
    BIG = 7


class Plain(enum.Enum):
    ONE = 1


floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [0.0, -0.0, 1e-4, 9.999e-5, 1e16, 9999999999999998.0, 1e-7, 5e-324, 0.1, 412.5]
    ),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    floats,
    st.text(),
    st.sampled_from([Colour.RED, Size.BIG, "\ud800", "é\x00\x1f\x7f\u2028😀"]),
)
keys = st.one_of(st.text(max_size=8), st.sampled_from(["é", "É", "z", "a", "😀"]))
documents = st.dictionaries(
    keys,
    st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(keys, children, max_size=4),
        ),
        max_leaves=20,
    ),
    max_size=6,
)


def outcome(function: Any, document: Any) -> Any:
    try:
        return function(document)
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        return type(exc)


# Slow by design: 400 generated documents, each written twice and compared.
@settings(max_examples=400, deadline=None)
@given(documents)
def test_indented_bytes_are_the_standard_librarys(document: dict[str, Any]) -> None:
    assert outcome(indented_json_bytes, document) == outcome(
        reference_indented, document
    )


# Slow by design: 400 generated documents, each written twice and compared.
@settings(max_examples=400, deadline=None)
@given(documents)
def test_compact_text_is_the_standard_librarys(document: dict[str, Any]) -> None:
    assert outcome(compact_json_text, document) == outcome(reference_compact, document)


def reference_sorted_compact(document: Any) -> str:
    return json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


# Slow by design: 400 generated documents, each written twice and compared.
@settings(max_examples=400, deadline=None)
@given(documents)
def test_sorted_compact_text_is_the_standard_librarys(
    document: dict[str, Any],
) -> None:
    assert outcome(sorted_compact_json_text, document) == outcome(
        reference_sorted_compact, document
    )


@pytest.mark.parametrize(
    "document", [[1, {"b": 1, "a": 2}], "x", 3, {"a": 1e16}, {"k": 2**64}]
)
def test_sorted_compact_text_of_any_value_is_the_standard_librarys(
    document: Any,
) -> None:
    assert sorted_compact_json_text(document) == reference_sorted_compact(document)


@pytest.mark.parametrize(
    "value",
    [
        1e-5,
        1e16,
        math.nan,
        math.inf,
        Colour.RED,
        Size.BIG,
        Plain.ONE,
        {1: "x"},
        {Colour.RED: 1},
    ],
)
def test_values_orjson_writes_differently_go_to_the_standard_library(
    value: Any,
) -> None:
    assert not orjson_writes_alike({"a": [{"b": value}]})


def test_plain_documents_are_ones_orjson_writes_alike() -> None:
    document = {"b": "é", "a": [1, 2.5, None, True, {"c": (0.0001, -3)}], "": {}}
    assert orjson_writes_alike(document)
    assert indented_json_bytes(document) == reference_indented(document)


def test_values_the_standard_library_refuses_are_still_refused() -> None:
    with pytest.raises(TypeError):
        indented_json_bytes({"a": Plain.ONE})
    with pytest.raises(TypeError):
        compact_json_text({"a": {1, 2}})
