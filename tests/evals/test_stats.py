"""evals.core.stats: epochs, reducers and a run's estimate, checked against
independent implementations (scipy.stats and plain-Python formulas written
here) on generated data, to 1e-9."""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict

import numpy as np
import pytest
from scipy import stats as sps

from evals.core.formats_types import RunSummary
from evals.core.gate_stat import run_estimates
from evals.core.runs import validate_run_summary
from evals.core.stats import (
    epochs_of,
    estimate,
    reduce_epochs,
    split_epoch,
    t_interval,
    wilson_interval,
)
from evals.core.stats_input import (
    MAX_REPEATS,
    Reducer,
    ReducerKind,
    StatInputError,
    parse_reducer,
)

TOL = 1e-9


def generated(
    seed: int, n: int, k: int, rate: float = 0.6
) -> tuple[list[str], list[float]]:
    """Pass/fail epochs of n scenarios with their own pass probability."""
    rng = random.Random(seed)
    ids: list[str] = []
    values: list[float] = []
    for i in range(n):
        p = min(1.0, max(0.0, rng.gauss(rate, 0.25)))
        for j in range(k):
            ids.append(f"scenario-{i:03d}#{j}")
            values.append(1.0 if rng.random() < p else 0.0)
    return ids, values


def by_scenario(ids: list[str], values: list[float]) -> dict[str, list[float]]:
    groups: dict[str, list[float]] = defaultdict(list)
    for case_id, value in zip(ids, values, strict=True):
        groups[case_id.rsplit("#", 1)[0]].append(value)
    return dict(sorted(groups.items()))


def oracle_pass_at_k(n: int, c: int, k: int) -> float:
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def oracle_pass_hat_k(n: int, c: int, k: int) -> float:
    return math.comb(c, k) / math.comb(n, k)


def test_split_epoch_reads_the_digits_after_the_last_hash() -> None:
    assert split_epoch("s1#3") == ("s1", 3)
    assert split_epoch("a#b#12") == ("a#b", 12)
    assert split_epoch("plain") == ("plain", 0)
    assert split_epoch("tag#x") == ("tag#x", 0)
    assert split_epoch("#4") == ("#4", 0)


def test_epochs_group_cases_by_scenario_in_sorted_order() -> None:
    epochs = epochs_of(["b#0", "a#1", "a#0", "b#1", "c"], [1, 0, 1, 1, 0])

    assert epochs.scenarios == ("a", "b", "c")
    assert epochs.counts.tolist() == [2, 2, 1]
    assert (epochs.n, epochs.k) == (3, 2)
    assert np.nansum(epochs.values, axis=1).tolist() == [1.0, 2.0, 0.0]


def test_more_epochs_than_allowed_is_an_error_naming_repeats() -> None:
    ids = [f"s#{j}" for j in range(MAX_REPEATS + 1)]

    with pytest.raises(StatInputError) as caught:
        epochs_of(ids, [1.0] * len(ids))

    assert caught.value.field == "repeats"


def test_a_value_that_is_not_finite_is_an_error_naming_values() -> None:
    with pytest.raises(StatInputError) as caught:
        epochs_of(["a", "b"], [1.0, math.nan])

    assert caught.value.field == "values"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mean", Reducer(ReducerKind.MEAN)),
        ("majority", Reducer(ReducerKind.MAJORITY)),
        ("max", Reducer(ReducerKind.MAX)),
        ("pass_at_3", Reducer(ReducerKind.PASS_AT_K, 3)),
        ("pass^2", Reducer(ReducerKind.PASS_HAT_K, 2)),
    ],
)
def test_reducer_names_parse_and_print_back(text: str, expected: Reducer) -> None:
    assert parse_reducer(text) == expected
    assert parse_reducer(text).name == text


@pytest.mark.parametrize("text", ["median", "pass_at_0", "pass^101", "pass_at_", ""])
def test_an_unknown_reducer_is_an_error_naming_reducer(text: str) -> None:
    with pytest.raises(StatInputError) as caught:
        parse_reducer(text)

    assert caught.value.field == "reducer"


@pytest.mark.parametrize("seed", range(5))
def test_reducers_match_the_combinatorial_definitions(seed: int) -> None:
    rng = random.Random(seed)
    ids: list[str] = []
    values: list[float] = []
    for i in range(40):
        for j in range(rng.randint(3, 12)):  # unequal epochs per scenario
            ids.append(f"s{i}#{j}")
            values.append(float(rng.random() < 0.5))
    epochs = epochs_of(ids, values)
    groups = by_scenario(ids, values)
    expected = {
        "mean": [statistics.fmean(v) for v in groups.values()],
        "max": [max(v) for v in groups.values()],
        "majority": [float(sum(v) > len(v) / 2) for v in groups.values()],
        "pass_at_3": [
            oracle_pass_at_k(len(v), int(sum(v)), 3) for v in groups.values()
        ],
        "pass^2": [oracle_pass_hat_k(len(v), int(sum(v)), 2) for v in groups.values()],
    }

    for name, wanted in expected.items():
        got = reduce_epochs(epochs, parse_reducer(name))
        assert np.allclose(got, wanted, rtol=0, atol=TOL), name


def test_pass_at_k_needs_k_epochs_in_every_scenario() -> None:
    epochs = epochs_of(["a#0", "a#1", "b#0"], [1, 0, 1])

    with pytest.raises(StatInputError) as caught:
        reduce_epochs(epochs, parse_reducer("pass_at_2"))

    assert caught.value.field == "reducer"


def test_majority_counts_a_tie_as_a_fail() -> None:
    epochs = epochs_of(["a#0", "a#1"], [1, 0])

    assert reduce_epochs(epochs, parse_reducer("majority")).tolist() == [0.0]


@pytest.mark.parametrize("seed", range(5))
def test_the_t_interval_matches_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 500))
    mean, se = float(rng.normal()), float(rng.random())

    got = t_interval(mean, se, n)
    low, high = sps.t.interval(0.95, n - 1, loc=mean, scale=se)

    assert (got.low, got.high, got.method) == (
        pytest.approx(low, abs=TOL),
        pytest.approx(high, abs=TOL),
        "t",
    )


@pytest.mark.parametrize(("passed", "n"), [(0, 5), (5, 5), (3, 7), (17, 29), (1, 1)])
def test_the_wilson_interval_matches_its_formula(passed: int, n: int) -> None:
    z = statistics.NormalDist().inv_cdf(0.975)
    p = passed / n
    centre = (passed + z * z / 2) / (n + z * z)
    half = z * math.sqrt(n) / (n + z * z) * math.sqrt(p * (1 - p) + z * z / (4 * n))

    got = wilson_interval(p, n)

    assert got.low == pytest.approx(max(0.0, centre - half), abs=TOL)
    assert got.high == pytest.approx(min(1.0, centre + half), abs=TOL)


@pytest.mark.parametrize("seed", range(5))
def test_the_clustered_standard_error_is_the_spread_of_scenario_means(
    seed: int,
) -> None:
    ids, values = generated(seed, n=60, k=5)
    means = [statistics.fmean(v) for v in by_scenario(ids, values).values()]

    got = estimate(epochs_of(ids, values))

    assert got.estimate == pytest.approx(statistics.fmean(means), abs=TOL)
    assert got.se == pytest.approx(statistics.stdev(means) / math.sqrt(60), abs=TOL)
    low, high = sps.t.interval(0.95, 59, loc=got.estimate, scale=got.se)
    assert (got.interval.low, got.interval.high) == (
        pytest.approx(low, abs=TOL),
        pytest.approx(high, abs=TOL),
    )
    assert (got.n, got.k, got.reducer) == (60, 5, "mean")


def test_with_one_epoch_the_standard_error_is_the_unclustered_one() -> None:
    rng = random.Random(7)
    values = [rng.random() for _ in range(80)]

    got = estimate(epochs_of([f"s{i}" for i in range(80)], values))

    assert got.se == pytest.approx(statistics.stdev(values) / math.sqrt(80), abs=TOL)
    assert got.k == 1
    assert got.design_effect == pytest.approx(1.0, abs=TOL)
    assert "within-scenario noise is unknown" in got.advice


def test_a_small_pass_fail_run_gets_the_wilson_interval() -> None:
    got = estimate(epochs_of([f"s{i}" for i in range(6)], [1, 1, 1, 1, 1, 0]))

    assert got.interval.method == "wilson"
    expected = wilson_interval(5 / 6, 6)
    assert (got.interval.low, got.interval.high) == (expected.low, expected.high)


def test_a_rate_of_one_gets_the_wilson_interval_even_with_many_scenarios() -> None:
    got = estimate(epochs_of([f"s{i}" for i in range(200)], [1.0] * 200))

    assert got.interval.method == "wilson"
    assert got.interval.high == 1.0
    assert got.interval.low < 1.0


def test_the_variance_split_matches_the_anova_moments() -> None:
    ids, values = generated(3, n=50, k=4)
    groups = by_scenario(ids, values)
    means = [statistics.fmean(v) for v in groups.values()]
    within = sum(
        sum((x - m) ** 2 for x in v)
        for v, m in zip(groups.values(), means, strict=True)
    )
    within /= sum(len(v) - 1 for v in groups.values())
    between = max(0.0, statistics.variance(means) - within / 4)
    icc = between / (between + within)

    got = estimate(epochs_of(ids, values))

    assert got.within_variance == pytest.approx(within, abs=TOL)
    assert got.between_variance == pytest.approx(between, abs=TOL)
    assert got.design_effect == pytest.approx(1 + 3 * icc, abs=TOL)
    assert got.advice.startswith("Doubling the repeats (K=4)")


def test_scenario_heavy_variance_advises_more_scenarios() -> None:
    # Every scenario is deterministic: all the variance is between scenarios.
    ids = [f"s{i}#{j}" for i in range(40) for j in range(3)]
    values = [float(i % 2) for i in range(40) for _ in range(3)]

    got = estimate(epochs_of(ids, values))

    assert got.within_variance == 0
    assert got.advice.endswith("more scenarios narrow it more.")


def test_intervals_shrink_as_the_number_of_scenarios_grows() -> None:
    widths = []
    for n in (20, 80, 320, 1280):
        ids, values = generated(11, n=n, k=3)
        found = estimate(epochs_of(ids, values)).interval
        widths.append(found.high - found.low)

    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < widths[0] / 4


def test_one_scenario_has_no_interval() -> None:
    got = estimate(epochs_of(["a#0", "a#1"], [0.2, 0.4]))

    assert got.interval.method == "none"
    assert math.isnan(got.interval.low)
    assert "fewer than 2 scenarios" in got.advice


# --- a stored run's figures ------------------------------------------------------


def stored_run(
    cases: list[dict[str, object]] | None, passed: int, total: int
) -> RunSummary:
    document: dict[str, object] = {
        "schemaVersion": 1,
        "runId": "r1",
        "benchmarkId": "ama",
        "status": "completed",
        "startedAt": "2026-03-06T10:00:00.000Z",
        "totalCases": total,
        "passedCases": passed,
        "failedCases": total - passed,
    }
    if cases is not None:
        document["caseResults"] = cases
    return validate_run_summary(document)


def test_a_stored_runs_pass_rate_and_score_carry_their_intervals() -> None:
    cases = [
        {"caseId": f"s{i}#{j}", "passed": (i + j) % 3 != 0, "score": ((i + j) % 3) / 2}
        for i in range(40)
        for j in range(3)
    ]
    passed = sum(1 for case in cases if case["passed"])

    found = run_estimates(stored_run(cases, passed, len(cases)))

    assert sorted(found) == ["passRate", "score"]
    assert (found["passRate"].n, found["passRate"].k) == (40, 3)
    assert found["passRate"].estimate == pytest.approx(passed / len(cases), abs=TOL)
    assert found["score"].interval.method == "t"


def test_a_stored_run_without_case_results_is_a_proportion_of_its_counts() -> None:
    found = run_estimates(stored_run(None, 5, 6))

    assert list(found) == ["passRate"]
    expected = wilson_interval(5 / 6, 6)
    assert (found["passRate"].interval.low, found["passRate"].interval.high) == (
        pytest.approx(expected.low, abs=TOL),
        pytest.approx(expected.high, abs=TOL),
    )
