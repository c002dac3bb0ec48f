"""Hypothesis strategies for the fast-path tests: JSON values near a
document's edge cases, and a known-good document with a few keys dropped or
replaced (the fast paths must never accept what the full checks refuse)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

Change = tuple[list[str], dict[str, Any]]


def json_values(*, max_int: int, words: Sequence[str]) -> st.SearchStrategy[Any]:
    """Small JSON values: null, booleans, small integers, any float (NaN and
    the infinities too), ``words``, and lists and objects of them."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, max_int),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(list(words)),
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=2)
            | st.dictionaries(st.text(max_size=3), inner, max_size=2)
        ),
        max_leaves=4,
    )


def changes(
    keys: Sequence[str], values: st.SearchStrategy[Any]
) -> st.SearchStrategy[Change]:
    """Up to two of ``keys`` to drop and up to three to set to ``values``."""
    return st.tuples(
        st.lists(st.sampled_from(list(keys)), max_size=2),
        st.dictionaries(st.sampled_from(list(keys)), values, max_size=3),
    )


def changed(base: Mapping[str, Any], change: Change) -> dict[str, Any]:
    """A deep copy of ``base`` with ``change`` applied (drops, then sets)."""
    drops, sets = change
    document = copy.deepcopy(dict(base))
    for key in drops:
        document.pop(key, None)
    document.update(sets)
    return document
