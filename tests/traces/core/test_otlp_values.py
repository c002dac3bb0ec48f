from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from traces.core.otlp_values import (
    SpanRejected,
    any_value,
    attribute_dict,
    cost_usd,
    finish_reason_text,
    seconds_as_ms,
    text_value,
    thought_id,
    token_count,
)


def test_any_value_gives_json_for_every_kind() -> None:
    nested = AnyValue()
    nested.kvlist_value.values.append(
        KeyValue(key="k", value=AnyValue(int_value=2**62))
    )
    array = AnyValue()
    array.array_value.values.extend(
        [AnyValue(bool_value=False), AnyValue(double_value=float("inf")), nested]
    )
    assert any_value(array) == [False, "Infinity", {"k": 2**62}]
    assert any_value(AnyValue(bytes_value=b"\x00\x01")) == "AAE="
    assert any_value(AnyValue()) is None
    assert any_value(AnyValue(string_value="\x00")) == "\\u0000"


def test_a_repeated_key_keeps_the_last_value() -> None:
    pairs = [
        KeyValue(key="a", value=AnyValue(int_value=1)),
        KeyValue(key="a", value=AnyValue(int_value=2)),
    ]
    assert attribute_dict(pairs) == {"a": 2}


def test_attribute_values_keep_their_kind_when_empty_zero_or_false() -> None:
    # The dict reads a non-empty string or non-zero integer in one access;
    # empty, zero, false and unset values still come out as their kind.
    pairs = [
        KeyValue(key="s", value=AnyValue(string_value="")),
        KeyValue(key="i", value=AnyValue(int_value=0)),
        KeyValue(key="n", value=AnyValue(int_value=-5)),
        KeyValue(key="b", value=AnyValue(bool_value=False)),
        KeyValue(key="d", value=AnyValue(double_value=0.0)),
        KeyValue(key="u", value=AnyValue()),
        KeyValue(key="t", value=AnyValue(string_value="x\x00é")),
    ]
    out = attribute_dict(pairs)
    assert out == {
        "s": "",
        "i": 0,
        "n": -5,
        "b": False,
        "d": 0.0,
        "u": None,
        "t": "x\\u0000é",
    }
    assert [type(out[k]) for k in "sibd"] == [str, int, bool, float]


@pytest.mark.parametrize(
    ("value", "expected"), [(None, None), (0, 0), (3.0, 3), (" 42 ", 42)]
)
def test_token_counts(value: Any, expected: int | None) -> None:
    assert token_count(value, "n") == expected


@pytest.mark.parametrize("value", [-1, 0.5, "NaN", "Infinity", 2**63, "x", False])
def test_token_counts_refused(value: Any) -> None:
    with pytest.raises(SpanRejected, match="^n "):
        token_count(value, "n")


def test_thought_ids_are_positive() -> None:
    assert thought_id(9) == 9
    with pytest.raises(SpanRejected, match="at least 1"):
        thought_id(0)


def test_cost_is_a_non_negative_decimal_of_ten_places() -> None:
    assert cost_usd(0.1) == Decimal("0.1000000000")
    assert cost_usd("1e-12") == Decimal("0E-10")
    assert cost_usd(None) is None
    for bad in (-0.01, "Infinity", "NaN", 10**9, [1], True):
        with pytest.raises(SpanRejected):
            cost_usd(bad)


def test_text_values_of_scalars() -> None:
    assert [text_value(v) for v in (None, "a", 5, True, [1], {"a": 1})] == [
        "",
        "a",
        "5",
        "true",
        "",
        "",
    ]
    assert finish_reason_text(["stop", "length"]) == "stop,length"
    assert finish_reason_text("stop") == "stop"


def test_seconds_as_ms_ignores_what_is_no_duration() -> None:
    assert seconds_as_ms(0.5) == 500.0
    assert [seconds_as_ms(v) for v in ("1", -1.0, float("nan"), True)] == [None] * 4
