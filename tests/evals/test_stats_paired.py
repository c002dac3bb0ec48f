"""evals.core.stats_paired: paired comparisons, exact McNemar, MDE, verdicts,
Holm and flips, against independent implementations to 1e-9."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from evals.core.stats import epochs_of, wilson_interval
from evals.core.stats_input import StatInputError, parse_reducer
from evals.core.stats_paired import (
    Verdict,
    adjust_all,
    compare,
    compare_proportions,
    flips,
    holm,
    mcnemar_exact,
    minimum_detectable_effect,
    require_same_benchmark,
)

TOL = 1e-9


def pass_fail(
    seed: int, n: int, rate_a: float, rate_b: float
) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    return (
        [float(rng.random() < rate_a) for _ in range(n)],
        [float(rng.random() < rate_b) for _ in range(n)],
    )


def one_epoch(values: list[float], prefix: str = "s") -> list[str]:
    return [f"{prefix}{i:04d}" for i in range(len(values))]


def oracle_mcnemar(b: int, c: int) -> float:
    """Two-sided exact binomial p at 1/2, written out."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


@pytest.mark.parametrize(
    ("b", "c"), [(0, 0), (3, 0), (10, 2), (7, 7), (40, 25), (0, 1)]
)
def test_exact_mcnemar_matches_scipy_and_the_binomial_sum(b: int, c: int) -> None:
    got = mcnemar_exact(b, c)

    assert got.p_value == pytest.approx(oracle_mcnemar(b, c), abs=TOL)
    if b + c:
        assert got.p_value == pytest.approx(sps.binomtest(b, b + c).pvalue, abs=TOL)


@pytest.mark.parametrize("seed", range(4))
def test_the_paired_delta_interval_is_scipys_t_interval_of_the_differences(
    seed: int,
) -> None:
    rng = random.Random(seed)
    a = [rng.random() for _ in range(150)]
    b = [x + rng.gauss(-0.05, 0.2) for x in a]
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    se = statistics.stdev(diffs) / math.sqrt(150)

    got = compare(
        epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b), metric="score"
    )

    assert got.delta == pytest.approx(statistics.fmean(diffs), abs=TOL)
    assert got.se == pytest.approx(se, abs=TOL)
    low, high = sps.t.interval(0.95, 149, loc=got.delta, scale=se)
    assert got.interval.low == pytest.approx(low, abs=TOL)
    assert got.interval.high == pytest.approx(high, abs=TOL)
    power = sps.t.ppf(0.975, 149) + sps.t.ppf(0.8, 149)
    assert got.mde == pytest.approx(power * se, abs=TOL)
    assert got.mcnemar is None


def test_pass_fail_at_k1_reports_mcnemar_and_judges_with_it() -> None:
    a, b = pass_fail(5, 300, 0.85, 0.70)
    both = list(zip(a, b, strict=True))
    expected_b = sum(1 for x, y in both if x == 1 and y == 0)
    expected_c = sum(1 for x, y in both if x == 0 and y == 1)

    got = compare(
        epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b), metric="passRate"
    )

    assert got.mcnemar is not None
    assert (got.mcnemar.b, got.mcnemar.c) == (expected_b, expected_c)
    assert got.p_value == pytest.approx(oracle_mcnemar(expected_b, expected_c), abs=TOL)
    assert got.verdict is Verdict.REGRESSION


def test_swapping_the_runs_negates_the_delta_and_mirrors_the_verdict() -> None:
    a, b = pass_fail(8, 400, 0.9, 0.75)
    ea, eb = epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b)

    forward = compare(ea, eb, metric="passRate")
    backward = compare(eb, ea, metric="passRate")

    assert backward.delta == pytest.approx(-forward.delta, abs=TOL)
    assert backward.interval.low == pytest.approx(-forward.interval.high, abs=TOL)
    assert backward.se == pytest.approx(forward.se, abs=TOL)
    assert (forward.verdict, backward.verdict) == (
        Verdict.REGRESSION,
        Verdict.IMPROVEMENT,
    )


def test_lower_is_better_turns_a_rise_into_a_regression() -> None:
    a = [0.1] * 50 + [0.2] * 50
    b = [x + 0.3 + 0.01 * (i % 3) for i, x in enumerate(a)]
    ea, eb = epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b)

    assert compare(ea, eb, metric="latency", higher_is_better=False).verdict is (
        Verdict.REGRESSION
    )
    assert compare(ea, eb, metric="score").verdict is Verdict.IMPROVEMENT


def test_a_small_drop_on_six_scenarios_is_inconclusive() -> None:
    a = [1.0, 1, 1, 1, 1, 0]
    b = [1.0, 1, 1, 1, 0, 0]

    got = compare(
        epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b), metric="passRate"
    )

    assert got.verdict is Verdict.INCONCLUSIVE
    assert got.underpowered


def test_identical_runs_are_no_change() -> None:
    a, _ = pass_fail(1, 50, 0.7, 0.7)
    ea = epochs_of(one_epoch(a), a)

    got = compare(ea, ea, metric="passRate")

    assert (got.delta, got.verdict) == (0.0, Verdict.NO_CHANGE)


def test_a_move_within_the_margin_is_no_change() -> None:
    rng = random.Random(3)
    a = [rng.random() for _ in range(2000)]
    b = [x + 0.01 + rng.gauss(0, 0.01) for x in a]

    got = compare(
        epochs_of(one_epoch(a), a),
        epochs_of(one_epoch(b), b),
        metric="score",
        margin=0.05,
    )

    assert got.verdict is Verdict.NO_CHANGE
    assert not got.underpowered


def test_a_drop_smaller_than_the_margin_is_not_a_regression() -> None:
    rng = random.Random(4)
    a = [rng.random() for _ in range(3000)]
    b = [x - 0.03 + rng.gauss(0, 0.01) for x in a]
    ea, eb = epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b)

    assert compare(ea, eb, metric="score", margin=0.0).verdict is Verdict.REGRESSION
    assert compare(ea, eb, metric="score", margin=0.05).verdict is Verdict.NO_CHANGE


def test_a_negative_margin_is_an_error_naming_margin() -> None:
    ea = epochs_of(["a", "b"], [1.0, 0.0])

    with pytest.raises(StatInputError) as caught:
        compare(ea, ea, metric="passRate", margin=-0.1)

    assert caught.value.field == "margin"


def test_scenarios_in_one_run_only_are_listed() -> None:
    base = epochs_of(["a", "b", "c"], [1.0, 1.0, 0.0])
    candidate = epochs_of(["b", "c", "d"], [1.0, 1.0, 0.0])

    got = compare(base, candidate, metric="passRate")

    assert got.n == 2
    assert (got.only_base, got.only_candidate) == (("a",), ("d",))


def oracle_holm(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        out[i] = min(1.0, max((m - r) * p[order[r]] for r in range(rank + 1)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_holm_matches_the_step_down_definition(seed: int) -> None:
    rng = random.Random(seed)
    p = [rng.random() ** 3 for _ in range(rng.randint(1, 12))]

    assert holm(p) == pytest.approx(oracle_holm(p), abs=TOL)


def test_holm_can_turn_a_lone_regression_into_inconclusive() -> None:
    a = [1.0] * 20 + [0.0] * 5 + [1.0] * 75
    b = [0.0] * 20 + [1.0] * 5 + [1.0] * 75
    ea, eb = epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b)
    lone = compare(ea, eb, metric="passRate")
    assert lone.mcnemar is not None
    assert (lone.mcnemar.b, lone.mcnemar.c) == (20, 5)
    assert lone.verdict is Verdict.REGRESSION
    assert lone.p_value > 0.05 / 20  # strong enough alone, not among 20
    quiet = [compare(ea, ea, metric=f"m{i}") for i in range(19)]

    adjusted = adjust_all([lone, *quiet])

    assert adjusted[0].p_adjusted == pytest.approx(min(1.0, 20 * lone.p_value), abs=TOL)
    assert adjusted[0].verdict is Verdict.INCONCLUSIVE


def test_the_mde_is_infinite_below_two_pairs() -> None:
    assert minimum_detectable_effect(0.1, 1) == math.inf


def test_flips_at_k1_list_each_moved_scenario_worst_first() -> None:
    base = epochs_of(["a", "b", "c", "d"], [1.0, 0.0, 1.0, 1.0])
    candidate = epochs_of(["a", "b", "c", "d"], [0.0, 1.0, 1.0, 0.0])

    got = flips(base, candidate)

    assert [(f.scenario, f.to_fail, f.to_pass) for f in got] == [
        ("a", 1.0, 0.0),
        ("d", 1.0, 0.0),
        ("b", 0.0, 1.0),
    ]


def test_flip_probability_with_repeats_is_pa_times_one_minus_pb() -> None:
    base = epochs_of(["a#0", "a#1", "a#2", "a#3"], [1.0, 1, 1, 0])
    candidate = epochs_of(["a#0", "a#1", "a#2", "a#3"], [1.0, 0, 0, 0])

    (got,) = flips(base, candidate)

    assert got.to_fail == pytest.approx(0.75 * 0.75, abs=TOL)
    assert got.to_pass == pytest.approx(0.25 * 0.25, abs=TOL)


def test_a_reducer_applies_before_pairing() -> None:
    base = epochs_of(["a#0", "a#1", "b#0", "b#1"], [1.0, 0, 0, 0])
    candidate = epochs_of(["a#0", "a#1", "b#0", "b#1"], [0.0, 0, 1, 0])

    best = compare(base, candidate, metric="passRate", reducer=parse_reducer("max"))
    mean = compare(base, candidate, metric="passRate")

    assert (best.base_mean, best.candidate_mean) == (0.5, 0.5)
    assert (mean.base_mean, mean.k) == (0.25, 2)


@pytest.mark.parametrize(
    ("a", "b"), [((45, 50), (40, 50)), ((5, 6), (4, 6)), ((10, 10), (3, 12))]
)
def test_counts_only_use_newcombes_interval(
    a: tuple[int, int], b: tuple[int, int]
) -> None:
    pa, pb = a[0] / a[1], b[0] / b[1]
    wa, wb = wilson_interval(pa, a[1]), wilson_interval(pb, b[1])
    d = pb - pa

    got = compare_proportions(a, b)

    assert got.delta == pytest.approx(d, abs=TOL)
    assert got.interval.low == pytest.approx(
        d - math.sqrt((pb - wb.low) ** 2 + (wa.high - pa) ** 2), abs=TOL
    )
    assert got.interval.high == pytest.approx(
        d + math.sqrt((wb.high - pb) ** 2 + (pa - wa.low) ** 2), abs=TOL
    )
    assert got.interval.method == "newcombe"


def test_counts_only_small_drop_is_inconclusive_and_large_drop_a_regression() -> None:
    assert compare_proportions((5, 6), (4, 6)).verdict is Verdict.INCONCLUSIVE
    assert compare_proportions((190, 200), (120, 200)).verdict is Verdict.REGRESSION


@pytest.mark.parametrize("seed", range(3))
def test_every_shared_scenario_pairs_in_any_order_of_cases(seed: int) -> None:
    rng = random.Random(seed)
    ids = [f"s{i}#{j}" for i, j in itertools.product(range(30), range(4))]
    a = [float(rng.random() < 0.6) for _ in ids]
    b = [float(rng.random() < 0.6) for _ in ids]
    shuffled = list(zip(ids, b, strict=True))
    rng.shuffle(shuffled)

    ordered = compare(epochs_of(ids, a), epochs_of(ids, b), metric="passRate")
    mixed = compare(
        epochs_of(ids, a),
        epochs_of([i for i, _ in shuffled], [v for _, v in shuffled]),
        metric="passRate",
    )

    assert mixed.delta == pytest.approx(ordered.delta, abs=TOL)
    assert mixed.se == pytest.approx(ordered.se, abs=TOL)


# --- properties on generated runs (Hypothesis) ----------------------------------

paired_runs = st.integers(min_value=2, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n),
        st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n),
    )
)


@settings(max_examples=60, deadline=None)
@given(paired_runs)
def test_swapping_any_two_runs_negates_the_delta(
    runs: tuple[list[float], list[float]],
) -> None:
    a, b = runs
    ea, eb = epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b)

    forward = compare(ea, eb, metric="score")
    backward = compare(eb, ea, metric="score")

    assert backward.delta == pytest.approx(-forward.delta, abs=TOL)
    assert backward.se == pytest.approx(forward.se, abs=TOL)
    flipped = {
        Verdict.REGRESSION: Verdict.IMPROVEMENT,
        Verdict.IMPROVEMENT: Verdict.REGRESSION,
    }
    assert backward.verdict is flipped.get(forward.verdict, forward.verdict)


@settings(max_examples=60, deadline=None)
@given(paired_runs)
def test_k1_pairs_are_the_plain_paired_t_interval(
    runs: tuple[list[float], list[float]],
) -> None:
    a, b = runs
    diffs = [y - x for x, y in zip(a, b, strict=True)]

    got = compare(
        epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b), metric="score"
    )

    assert got.k == 1
    assert got.delta == pytest.approx(statistics.fmean(diffs), abs=TOL)
    assert got.se == pytest.approx(
        statistics.stdev(diffs) / math.sqrt(len(diffs)), abs=TOL
    )


@pytest.mark.parametrize("seed", range(3))
def test_paired_intervals_shrink_as_scenarios_grow(seed: int) -> None:
    widths = []
    for n in (25, 100, 400, 1600):
        a, b = pass_fail(seed, n, 0.8, 0.75)
        got = compare(
            epochs_of(one_epoch(a), a), epochs_of(one_epoch(b), b), metric="passRate"
        )
        widths.append(got.interval.high - got.interval.low)

    assert widths == sorted(widths, reverse=True)


def test_runs_of_different_benchmarks_are_refused_naming_benchmark_id() -> None:
    require_same_benchmark("ama", "ama")

    with pytest.raises(StatInputError) as caught:
        require_same_benchmark("ama", "obj")

    assert caught.value.field == "benchmarkId"
    assert caught.value.message.startswith("benchmarkId: runs of different benchmarks")
