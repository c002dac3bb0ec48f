"""The rules that fill a queue from a run."""

from __future__ import annotations

import pytest

from core.errors import SchemaInvalid
from reviews.core.rules import (
    Rule,
    flip_cases,
    hallucination_cases,
    rule_check,
    sample_cases,
)


def test_a_sample_rule_keeps_its_share() -> None:
    assert rule_check("sample", " run-1 ", "12.5") == Rule("sample", "run-1", 12.5)
    assert rule_check("hallucinations", "run-1") == Rule(
        "hallucinations", "run-1", 100.0
    )


@pytest.mark.parametrize(
    ("args", "fields"),
    [
        (("everything", "run-1"), {"rule"}),
        (("sample", "", 10), {"run_id"}),
        (("sample", "run-1", 0), {"percent"}),
        (("sample", "run-1", 101), {"percent"}),
        (("sample", "run-1", "ten"), {"percent"}),
        (("sample", "run-1", True), {"percent"}),
        (("sample", None, None), {"run_id", "percent"}),
    ],
)
def test_a_bad_rule_names_every_bad_field(args: tuple, fields: set[str]) -> None:
    with pytest.raises(SchemaInvalid) as exc:
        rule_check(*args)
    assert {p.path for p in exc.value.problems} == fields


def test_a_sample_is_the_share_rounded_up_and_the_same_every_time() -> None:
    cases = [f"c{i}" for i in range(40)]
    first = sample_cases(cases, 25, seed="run-1")
    assert len(first) == 10
    assert first == sample_cases(list(reversed(cases)), 25, seed="run-1")
    assert first == sorted(first)
    assert len(sample_cases(cases, 1, seed="run-1")) == 1
    assert sample_cases(cases, 100, seed="x") == sorted(cases)
    assert sample_cases(cases, 25, seed="run-2") != first


def test_a_sample_of_nothing_is_empty() -> None:
    assert sample_cases([], 50, seed="r") == []


def test_hallucinations_are_the_cases_with_a_category() -> None:
    rows = [("b", "missing_item"), ("a", None), ("c", ""), ("d", "missing_entity")]
    assert hallucination_cases(rows) == ["b", "d"]


def test_flips_are_the_shared_cases_whose_outcome_changed() -> None:
    base = {"a": True, "b": False, "c": True, "only-base": True}
    candidate = {"a": False, "b": False, "c": True, "d": False}
    assert flip_cases(base, candidate) == ["a"]
