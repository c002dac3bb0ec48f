"""Canonical JSON: leaves skipped by the float rounding give the same text."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.canonical import FLOAT_PLACES, canonical_json


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
        st.text(max_size=5),
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


def test_floats_in_subclassed_containers_are_rounded() -> None:
    assert canonical_json(OrderedDict(b=(1.0000000001, Ratio(0.1234567891)))) == (
        '{"b":[1.0,0.123456789]}'
    )
