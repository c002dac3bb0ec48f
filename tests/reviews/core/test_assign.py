"""The overlap share and round robin."""

from __future__ import annotations

from collections import Counter

import pytest

from reviews.core.assign import bucket, reviewers_wanted, round_robin, subject_key


def test_the_bucket_is_stable_in_range_and_salted() -> None:
    assert bucket("scenario_result:r/c1") == bucket("scenario_result:r/c1")
    assert all(0 <= bucket(f"k{i}") < 10_000 for i in range(100))
    keys = [f"k{i}" for i in range(20)]
    assert [bucket(k, salt="x") for k in keys] != [bucket(k, salt="y") for k in keys]


def test_overlap_zero_and_hundred_are_none_and_all() -> None:
    keys = [subject_key("thought", str(i)) for i in range(200)]
    assert {reviewers_wanted(k, 0) for k in keys} == {1}
    assert {reviewers_wanted(k, 100) for k in keys} == {2}


def test_the_overlap_share_is_close_to_the_percent_and_deterministic() -> None:
    keys = [subject_key("thought", str(i)) for i in range(4000)]
    doubled = [k for k in keys if reviewers_wanted(k, 25) == 2]
    assert 0.22 < len(doubled) / len(keys) < 0.28
    assert doubled == [k for k in keys if reviewers_wanted(k, 25) == 2]
    # A bigger share keeps every item the smaller one doubled.
    assert set(doubled) <= {k for k in keys if reviewers_wanted(k, 50) == 2}


def test_an_overlap_outside_zero_to_hundred_is_an_error() -> None:
    with pytest.raises(ValueError, match="0..100"):
        reviewers_wanted("k", 101)


def test_round_robin_takes_turns_when_loads_are_level() -> None:
    assert round_robin([1, 2, 3], [1] * 7) == [(1,), (2,), (3,), (1,), (2,), (3,), (1,)]


def test_round_robin_is_fair_to_one_item_over_many() -> None:
    chosen = round_robin([1, 2, 3, 4], [1, 2, 1, 1, 2, 1] * 10)
    counts = Counter(r for item in chosen for r in item)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_round_robin_fills_the_least_loaded_first() -> None:
    # 2 has nothing, so it goes first; then 2 and 3 are level and it is 3's turn.
    assert round_robin([1, 2, 3], [1, 1], {1: 5, 2: 0, 3: 1}) == [(2,), (3,)]


def test_an_item_never_gets_the_same_reviewer_twice() -> None:
    for item in round_robin([7, 8], [2, 2, 3]):
        assert len(item) == len(set(item))
    assert round_robin([7, 8], [3]) == [(7, 8)]


def test_no_reviewers_gives_nothing() -> None:
    assert round_robin([], [1, 2]) == [(), ()]
