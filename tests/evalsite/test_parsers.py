"""The JSON body parser's fast path (orjson) answers exactly as the
standard-library path does: same value (types, key order, float bits) or
the same refusal, for hostile and random bodies alike."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ParseError, ValidationError

from evalsite import parsers
from evalsite.parsers import (
    json_depth_exceeds,
    parse_json_body,
    parse_json_body_checked,
)


def answer(parse: Any, raw: bytes) -> tuple[str, str]:
    try:
        return ("value", repr(parse(raw)))
    except (ParseError, ValidationError) as error:
        return (type(error).__name__, repr(error.detail))


def same_answer(raw: bytes) -> None:
    assert answer(parse_json_body, raw) == answer(parse_json_body_checked, raw), raw


HOSTILE = [
    b"",
    b" ",
    b"{}",
    b"[]",
    b'{"a": 1, "b": 2, "a": 3}',
    b"9223372036854775807",
    b"9223372036854775808",
    b"-9223372036854775808",
    b"-9223372036854775809",
    b"18446744073709551615",
    b"18446744073709551616",
    b"100000000000000000000",
    b'{"n": 1234567890123456789012345}',
    b'{"s": "1234567890123456789012345"}',
    b"1e400",
    b"-1e400",
    b"1.7976931348623159e308",
    b"1e-400",
    b"-0",
    b"-0.0",
    b"0.1",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b'{"a": NaN}',
    b'"\\u0000"',
    b'"\\\\u0000"',
    b'{"a\\u0000": 1}',
    b'"\\ud800"',
    b'"\\udc00"',
    b'"\\ud800\\u0041"',
    b'"\\ud83d\\ude00"',
    b'"\\uD800"',
    b'"\xed\xa0\x80"',
    b'"\xc0\x80"',
    b'"\xf4\x90\x80\x80"',
    b'"\xef\xbf\xbe"',
    b'"\xff"',
    b"\xef\xbb\xbf{}",
    b"\xff\xfe{\x00}\x00",
    b"\xfe\xff\x00{\x00}",
    b"{\x00}\x00",
    b'"a\x00b"',
    b'"a\x1fb"',
    b'"a\x7fb"',
    b"01",
    b"1.",
    b".5",
    b"+1",
    b"-",
    b"1e",
    b"1E5",
    b"[1,]",
    b'{"a":1,}',
    b"tru",
    b"1 2",
    b"[1]x",
    b'"\\x"',
    b'"\\U0041"',
    b'"\\u004"',
    b"\x0c{}",
    b"{}\x0b",
    b" \t\r\n{} \t\r\n",
    b"[" * 31 + b"]" * 31,
    b"[" * 32 + b"]" * 32,
    b"[" * 33 + b"]" * 33,
    b'{"a":' * 40 + b"1" + b"}" * 40,
    b"[" * 2000 + b"]" * 2000,
    b"[" * 100_000,
    b'{"records": [' + b",".join([b'{"x": [1, 2, {"y": "z"}]}'] * 50) + b"]}",
]


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        (b"1e400", "$"),
        (b'{"score": -1e400}', "score"),
        (b'{"a": [1, {"b": 1e309}]}', "a[1].b"),
    ],
)
def test_a_number_that_overflows_to_infinity_is_refused_naming_its_field(
    raw: bytes, path: str
) -> None:
    """json.loads turns 1e400 into inf, which no JSON answer can write back
    (a 500 wherever it was echoed) and jsonb refuses: a 400 for the field."""
    with pytest.raises(ValidationError) as refused:
        parse_json_body(raw)
    assert refused.value.detail == {path: ["number is not finite"]}


@pytest.mark.parametrize("raw", HOSTILE)
def test_fast_path_answers_as_the_standard_library(raw: bytes) -> None:
    same_answer(raw)


def test_fast_path_is_taken_for_plain_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is no dead code: plain bodies never reach the slow one."""

    def slow(raw: bytes) -> Any:
        raise AssertionError("slow path taken")

    monkeypatch.setattr(parsers, "parse_json_body_checked", slow)
    assert parse_json_body(b'{"a": [1, 2.5, "x\\u00e9", true, null]}') == {
        "a": [1, 2.5, "x\u00e9", True, None]
    }


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.booleans())
def test_random_documents_answer_alike(value: Any, ascii_only: bool) -> None:
    try:
        text = json.dumps(value, ensure_ascii=ascii_only)
    except ValueError:
        return
    same_answer(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=300)
@given(st.binary(max_size=40))
def test_random_bytes_answer_alike(raw: bytes) -> None:
    same_answer(raw)


@settings(max_examples=200)
@given(json_values, st.integers(min_value=1, max_value=6))
def test_depth_check_matches_a_recursive_count(value: Any, limit: int) -> None:
    def depth(item: Any) -> int:
        if isinstance(item, dict):
            return 1 + max(map(depth, item.values()), default=0)
        if isinstance(item, list):
            return 1 + max(map(depth, item), default=0)
        return 0

    assert json_depth_exceeds(value, limit) == (depth(value) > limit)
