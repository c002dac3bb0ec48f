"""Cohen's kappa and Krippendorff's alpha (reviews.core.agreement), checked
against independent implementations (scikit-learn's ``cohen_kappa_score``
and the ``krippendorff`` package) on generated data to 1e-9, and the
undefined cases named."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from reviews.core.agreement import (
    NO_PAIRS,
    NOT_TWO,
    UNDEFINED_ONE_VALUE,
    Level,
    Weights,
    alpha_words,
    cohen_kappa,
    kappa_of_matrix,
    kappa_words,
    krippendorff_alpha,
    reliability_matrix,
)

TOLERANCE = 1e-9


def reference_alpha(matrix: np.ndarray, level: Level) -> float:
    return float(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement=level.value)
    )


def generated_matrix(
    rng: np.random.Generator,
    reviewers: int,
    items: int,
    categories: int,
    missing: float,
) -> np.ndarray:
    """Reviewers who mostly agree on a per-item truth, with missing cells."""
    truth = rng.integers(0, categories, size=items)
    noise = rng.integers(0, categories, size=(reviewers, items))
    agree = rng.random((reviewers, items)) < 0.7
    matrix = np.where(agree, truth[None, :], noise).astype(np.float64)
    matrix[rng.random((reviewers, items)) < missing] = np.nan
    return matrix


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("level", [Level.NOMINAL, Level.INTERVAL])
def test_alpha_matches_the_krippendorff_package_with_missing_values(
    seed: int, level: Level
) -> None:
    rng = np.random.default_rng(seed)
    matrix = generated_matrix(
        rng,
        reviewers=int(rng.integers(2, 7)),
        items=int(rng.integers(5, 60)),
        categories=int(rng.integers(2, 6)),
        missing=float(rng.uniform(0.0, 0.5)),
    )
    found = krippendorff_alpha(matrix, level)
    expected = reference_alpha(matrix, level)
    assert found.value is not None
    assert abs(found.value - expected) < TOLERANCE


@pytest.mark.parametrize("seed", range(20))
def test_interval_alpha_matches_on_real_valued_scores(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    truth = rng.normal(5.0, 2.0, size=30)
    matrix = truth[None, :] + rng.normal(0.0, 1.0, size=(4, 30))
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    found = krippendorff_alpha(matrix, Level.INTERVAL)
    assert found.value is not None
    assert abs(found.value - reference_alpha(matrix, Level.INTERVAL)) < TOLERANCE


cells = st.one_of(st.none(), st.integers(0, 3).map(float))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda reviewers: st.lists(
            st.lists(cells, min_size=reviewers, max_size=reviewers),
            min_size=2,
            max_size=25,
        )
    ),
    st.sampled_from(list(Level)),
)
def test_alpha_matches_the_reference_on_any_defined_matrix(
    columns: list[list[float | None]], level: Level
) -> None:
    matrix = reliability_matrix([list(row) for row in zip(*columns, strict=True)])
    found = krippendorff_alpha(matrix, level)
    if found.value is None:
        # the reference refuses the same matrices (one value, or no pair)
        # or answers NaN (0/0)
        try:
            reference = reference_alpha(matrix, level)
        except ValueError as refused:
            reference = math.nan
            message = str(refused)
            assert "has to be" in message  # noqa: PT017 - the reference's words
        assert math.isnan(reference)
        return
    assert abs(found.value - reference_alpha(matrix, level)) < TOLERANCE


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("weights", list(Weights))
def test_kappa_matches_scikit_learn(seed: int, weights: Weights) -> None:
    rng = np.random.default_rng(seed)
    matrix = generated_matrix(
        rng,
        reviewers=2,
        items=int(rng.integers(5, 80)),
        categories=int(rng.integers(2, 6)),
        missing=0.0,
    )
    found = cohen_kappa(list(matrix[0]), list(matrix[1]), weights=weights)
    expected = cohen_kappa_score(
        matrix[0], matrix[1], weights=None if weights == Weights.NONE else weights.value
    )
    assert found.value is not None
    assert abs(found.value - expected) < TOLERANCE
    assert (found.items, found.reviewers) == (matrix.shape[1], 2)


@pytest.mark.parametrize("weights", [Weights.LINEAR, Weights.QUADRATIC])
def test_weighted_kappa_uses_the_given_category_order(weights: Weights) -> None:
    rng = np.random.default_rng(7)
    matrix = generated_matrix(rng, reviewers=2, items=50, categories=4, missing=0.0)
    order = [3.0, 0.0, 2.0, 1.0, 4.0]  # 4 is never used
    found = cohen_kappa(
        list(matrix[0]), list(matrix[1]), weights=weights, categories=order
    )
    expected = cohen_kappa_score(
        matrix[0], matrix[1], labels=order, weights=weights.value
    )
    assert found.value is not None
    assert abs(found.value - expected) < TOLERANCE


def test_kappa_counts_only_items_both_scored() -> None:
    first = [0, 1, None, 1, 0, 1]
    second = [0, 1, 1, None, 1, 1]
    found = cohen_kappa(first, second)
    expected = cohen_kappa_score([0, 1, 0, 1], [0, 1, 1, 1])
    assert found.value == pytest.approx(expected, abs=TOLERANCE)
    assert found.items == 4


def test_perfect_agreement_is_one_and_systematic_disagreement_below_zero() -> None:
    assert cohen_kappa([0, 1, 0, 1], [0, 1, 0, 1]).value == 1.0
    assert krippendorff_alpha([[0, 1, 0, 1], [0, 1, 0, 1]]).value == 1.0
    flipped = cohen_kappa([0, 1, 0, 1], [1, 0, 1, 0]).value
    assert flipped is not None and flipped < 0


def test_one_value_only_is_undefined_with_a_reason() -> None:
    kappa = cohen_kappa([1, 1, 1], [1, 1, 1])
    assert (kappa.value, kappa.reason, kappa.items) == (None, UNDEFINED_ONE_VALUE, 3)
    alpha = krippendorff_alpha([[2, 2, None], [2, 2, 2]], Level.INTERVAL)
    assert (alpha.value, alpha.reason, alpha.items) == (None, UNDEFINED_ONE_VALUE, 2)
    # the reference agrees there is no number
    assert math.isnan(cohen_kappa_score([1, 1, 1], [1, 1, 1]))


def test_no_item_scored_twice_is_undefined_with_a_reason() -> None:
    alpha = krippendorff_alpha([[0, None, 1], [None, 1, None]])
    assert (alpha.value, alpha.reason, alpha.items, alpha.reviewers) == (
        None,
        NO_PAIRS,
        0,
        0,
    )
    assert krippendorff_alpha([]).reason == NO_PAIRS
    assert cohen_kappa([0, None], [None, 1]).reason == NO_PAIRS
    assert cohen_kappa([], []).reason == NO_PAIRS


def test_alpha_counts_items_reviewers_and_values_that_entered_it() -> None:
    found = krippendorff_alpha(
        [[0, 1, None, 1], [0, None, None, 1], [None, 1, 0, None]]
    )
    # item 3 has one score only: left out
    assert (found.items, found.reviewers, found.values) == (3, 3, 6)


def test_kappa_of_a_matrix_needs_exactly_two_active_reviewers() -> None:
    three = reliability_matrix([[0, 1], [0, 1], [1, 1]])
    assert kappa_of_matrix(three).reason == NOT_TWO
    two_and_idle = reliability_matrix([[0, 1, 0], [0, 1, 1], [None, None, None]])
    found = kappa_of_matrix(two_and_idle)
    expected = cohen_kappa_score([0, 1, 0], [0, 1, 1])
    assert found.value == pytest.approx(expected, abs=TOLERANCE)


def test_bad_matrices_are_refused() -> None:
    with pytest.raises(ValueError, match="one cell per item"):
        reliability_matrix([[0, 1], [0]])
    with pytest.raises(ValueError, match="infinite"):
        reliability_matrix([[0, math.inf]])
    with pytest.raises(ValueError, match="not a category"):
        cohen_kappa([0, 5], [0, 1], categories=[0, 1])


@pytest.mark.parametrize(
    ("value", "word"),
    [
        (-0.2, "poor"),
        (0.0, "slight"),
        (0.3, "fair"),
        (0.5, "moderate"),
        (0.7, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
    ],
)
def test_kappa_words(value: float, word: str) -> None:
    assert kappa_words(value) == word


@pytest.mark.parametrize(
    ("value", "word"),
    [(0.5, "unreliable"), (0.667, "tentative"), (0.79, "tentative"), (0.8, "reliable")],
)
def test_alpha_words(value: float, word: str) -> None:
    assert alpha_words(value) == word
