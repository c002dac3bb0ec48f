"""Epochs from each scenario's counts give what the per-case grouping gives
(``evals.core.compare_sums``), refuse as it refuses, and say when the
database's split of case ids cannot be trusted."""

from __future__ import annotations

import numpy as np
import pytest

from evals.core.compare_sums import epochs_from_counts, split_as_python
from evals.core.stats import epochs_of, reduce_epochs
from evals.core.stats_input import MEAN, StatInputError, parse_reducer
from evals.core.stats_paired import compare, flips


def test_counts_give_the_reductions_comparisons_and_flips_of_the_cases() -> None:
    ids = ["b#0", "b#1", "b#2", "a#1", "a#0", "c"]
    base = epochs_of(ids, [1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    candidate = epochs_of(ids, [0.0, 0.0, 1.0, 1.0, 1.0, 0.0])

    from_counts = epochs_from_counts([("c", 1, 1), ("b", 3, 2), ("a", 2, 1)])
    other = epochs_from_counts([("b", 3, 1), ("a", 2, 2), ("c", 1, 0)])

    assert from_counts.scenarios == base.scenarios == ("a", "b", "c")
    assert from_counts.counts.tolist() == base.counts.tolist()
    for name in ("mean", "majority", "max", "pass_at_1", "pass^1"):
        reducer = parse_reducer(name)
        assert np.array_equal(
            reduce_epochs(from_counts, reducer), reduce_epochs(base, reducer)
        )
    assert compare(from_counts, other, metric="passRate") == compare(
        base, candidate, metric="passRate"
    )
    assert flips(from_counts, other) == flips(base, candidate)
    assert reduce_epochs(epochs_from_counts([]), MEAN).tolist() == []


def test_too_many_repeats_are_refused_as_the_grouping_refuses() -> None:
    with pytest.raises(StatInputError) as counted:
        epochs_from_counts([("a", 4, 1)], max_repeats=3)
    with pytest.raises(StatInputError) as grouped:
        epochs_of(["a#0", "a#1", "a#2", "a#3"], [1.0, 0, 0, 0], max_repeats=3)

    assert counted.value.field == grouped.value.field == "repeats"
    assert counted.value.message == grouped.value.message


def test_a_name_still_ending_in_digits_of_another_script_is_flagged() -> None:
    assert split_as_python([("a", 2, 1), ("a#b", 1, 0), ("x#", 1, 1), ("#3", 1, 1)])
    assert not split_as_python([("a#\u0663", 1, 1)])  # ARABIC-INDIC DIGIT THREE
