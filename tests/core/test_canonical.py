"""Canonical JSON: the same text as ``json.dumps`` of the rounded value,
whether orjson writes it or the standard library does."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.canonical import FLOAT_PLACES, canonical_json
from core.json_bytes import orjson_writes_alike


def reference(value: Any) -> str:
    def rounded(v: Any) -> Any:
        if isinstance(v, float):
            return round(v, FLOAT_PLACES)
        if isinstance(v, dict):
            return {k: rounded(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [rounded(x) for x in v]
        return v

    return json.dumps(
        rounded(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


class Ratio(float):
    pass


values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        st.floats(allow_nan=False).map(Ratio),
        # Rounding and repr edges: already rounded or not, exponent or not.
        st.sampled_from(
            [
                0.0,
                -0.0,
                0.1,
                0.123456789,
                0.1234567891,
                1e-4,
                9.99e-5,
                1e-9,
                4e-10,
                6e-10,
                1e15 + 0.5,
                1e16,
                9007199254740993.0,
                412.5,
            ]
        ),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.text(max_size=5),
        st.sampled_from(["\ud800", "é\x00\x1f\x7f\u2028😀", '"\\']),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=4), children, max_size=4),
        st.dictionaries(st.text(max_size=4), children, max_size=4).map(OrderedDict),
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_canonical_json_rounds_every_float_wherever_it_sits(value: Any) -> None:
    assert canonical_json(value) == reference(value)


# JSON bodies: a dict at the top, floats mostly in the range orjson writes
# as repr does, some already rounded to FLOAT_PLACES and some not.
in_range_floats = st.one_of(
    st.floats(min_value=1e-4, max_value=1e6),
    st.floats(min_value=-1e6, max_value=-1e-4),
    st.integers(min_value=-(10**12), max_value=10**12).map(lambda n: n / 10**9),
    st.integers(min_value=-(10**12), max_value=10**12).map(lambda n: n / 10**10),
)
bodies = st.dictionaries(
    st.text(max_size=4),
    st.recursive(
        st.one_of(in_range_floats, st.integers(), st.text(max_size=3), st.none()),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.text(max_size=4), children, max_size=4),
        ),
        max_leaves=12,
    ),
    max_size=5,
)


# Slow by design: 300 generated bodies against the slow reference rounding.
@settings(max_examples=300, deadline=None)
@given(bodies)
def test_canonical_json_of_a_json_body_is_the_rounded_reference(value: Any) -> None:
    assert canonical_json(value) == reference(value)


def test_floats_in_subclassed_containers_are_rounded() -> None:
    assert canonical_json(OrderedDict(b=(1.0000000001, Ratio(0.1234567891)))) == (
        '{"b":[1.0,0.123456789]}'
    )


def test_a_json_body_of_rounded_floats_is_written_by_orjson() -> None:
    # The documents hashed on every request and suite line take the fast path.
    facts = {"need": {"hunger": 0.35, "items": ["bread", 2]}, "note": "é", "t": 1.5}
    assert orjson_writes_alike(facts, rounded_to=FLOAT_PLACES)
    assert canonical_json(facts) == reference(facts)
    assert not orjson_writes_alike({"x": 0.1234567891}, rounded_to=FLOAT_PLACES)
    assert canonical_json({"x": 0.1234567891, "a": 2**65}) == (
        '{"a":36893488147419103232,"x":0.123456789}'
    )
