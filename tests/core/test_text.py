"""core.text's JSON value walks, tested without Django."""

from __future__ import annotations

from core.text import non_finite_numbers


def test_non_finite_numbers_are_found_by_path() -> None:
    value = {"a": [1.0, float("inf")], "b": {"c": float("nan")}, "d": 1e308}
    assert non_finite_numbers(value) == [("a", 1), ("b", "c")]
    assert len(non_finite_numbers([float("-inf")] * 50, limit=3)) == 3
