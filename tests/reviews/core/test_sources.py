"""The checks and samples of the fills that read other apps' records."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.errors import SchemaInvalid
from reviews.core.sources import (
    capped_sample,
    eligible_choice,
    pull_parse,
    share_sample,
    time_range_check,
)
from tests.builders import T0


def _fields(error: SchemaInvalid) -> set[str]:
    return {problem.path for problem in error.problems}


def test_a_range_with_its_start_before_its_end_or_open_sides_is_kept() -> None:
    later = T0 + timedelta(hours=1)
    assert time_range_check(T0, later) == (T0, later)
    assert time_range_check(None, later) == (None, later)
    assert time_range_check(T0, None) == (T0, None)
    assert time_range_check(None, None) == (None, None)


@pytest.mark.parametrize("end", [T0, T0 - timedelta(seconds=1)])
def test_a_range_ending_at_or_before_its_start_is_refused_on_until(end) -> None:
    with pytest.raises(SchemaInvalid) as caught:
        time_range_check(T0, end)
    assert _fields(caught.value) == {"until"}


@pytest.mark.parametrize(
    ("value", "wanted"),
    [(None, None), ("", None), ("any", None), ("yes", True), (" No ", False)],
)
def test_the_eligibility_filter_reads_yes_no_any(value, wanted) -> None:
    assert eligible_choice(value) is wanted


@pytest.mark.parametrize("value", ["maybe", 1, 0.5, ["yes"]])
def test_another_eligibility_filter_is_refused_naming_eligible(value) -> None:
    with pytest.raises(SchemaInvalid) as caught:
        eligible_choice(value)
    assert _fields(caught.value) == {"eligible"}


def test_under_the_cap_every_ref_is_kept_once_in_number_order() -> None:
    assert capped_sample(["10", "2", "10", "1"], 5, seed="s") == ["1", "2", "10"]


def test_over_the_cap_the_same_sample_is_taken_every_time() -> None:
    refs = [str(n) for n in range(1, 501)]
    first = capped_sample(refs, 50, seed="alpha")
    assert len(first) == 50
    assert set(first) <= set(refs)
    assert capped_sample(list(reversed(refs)), 50, seed="alpha") == first
    assert capped_sample(refs, 50, seed="beta") != first
    assert first == sorted(first, key=int)


def test_a_cap_of_zero_keeps_nothing() -> None:
    assert capped_sample(["1", "2"], 0, seed="s") == []


def test_a_share_rounds_up_and_keeps_at_least_one() -> None:
    refs = [str(n) for n in range(1, 11)]
    assert len(share_sample(refs, 25, seed="s")) == 3
    assert len(share_sample(refs, 0.1, seed="s")) == 1
    assert share_sample(refs, 100, seed="s") == refs
    assert share_sample([], 50, seed="s") == []


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("acme/widgets#7", ("acme", "widgets", 7)),
        (" acme/my.repo-2#123 ", ("acme", "my.repo-2", 123)),
        ("acme/widgets", None),
        ("acme#7", None),
        ("acme/widgets#0", None),
        ("acme/widgets#x", None),
        ("a/b/c#1", None),
        (7, None),
    ],
)
def test_a_pull_request_is_named_owner_name_number(text, wanted) -> None:
    assert pull_parse(text) == wanted
