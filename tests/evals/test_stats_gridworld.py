"""gridworld.core.stats: IQM, the stratified bootstrap, the probability of
improvement and performance profiles, against loop-by-loop implementations
written here (same seeded draws) to 1e-9."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from gridworld.core.stats import (
    MIN_RESAMPLES,
    StatsInputError,
    bootstrap_interval,
    iqm,
    performance_profile,
    probability_of_improvement,
    stratified_indices,
)

TOL = 1e-9


def oracle_iqm(values: list[float]) -> float:
    """Mean of the middle half, for a length divisible by 4."""
    ordered = sorted(values)
    quarter = len(ordered) // 4
    return statistics.fmean(ordered[quarter : len(ordered) - quarter])


def episodes(
    seed: int, maps: int = 4, per_map: int = 25
) -> tuple[list[float], list[str]]:
    rng = np.random.default_rng(seed)
    values: list[float] = []
    strata: list[str] = []
    for m in range(maps):
        values += rng.normal(m, 1 + m, size=per_map).tolist()
        strata += [f"map-{m}"] * per_map
    return values, strata


@pytest.mark.parametrize("seed", range(4))
def test_iqm_is_the_mean_of_the_middle_half(seed: int) -> None:
    values = np.random.default_rng(seed).normal(size=400).tolist()

    assert float(iqm(values)) == pytest.approx(oracle_iqm(values), abs=TOL)


def test_stratified_resamples_draw_within_each_map() -> None:
    strata = ["b", "a", "b", "a", "a", "c"]

    rows = stratified_indices(strata, 50, np.random.default_rng(0))

    assert rows.shape == (50, 6)
    assert {strata[i] for i in rows[:, :3].ravel()} == {"a"}
    assert {strata[i] for i in rows[:, 3:5].ravel()} == {"b"}
    assert {strata[i] for i in rows[:, 5]} == {"c"}


@pytest.mark.parametrize("statistic", ["iqm", "mean"])
def test_the_bootstrap_interval_matches_a_loop_over_the_same_draws(
    statistic: str,
) -> None:
    values, strata = episodes(1)
    data = np.asarray(values)
    rows = stratified_indices(strata, MIN_RESAMPLES, np.random.default_rng(42))
    compute = oracle_iqm if statistic == "iqm" else statistics.fmean
    samples = [compute(data[row].tolist()) for row in rows]
    low, high = np.percentile(samples, [2.5, 97.5])

    got = bootstrap_interval(values, strata, statistic=statistic, seed=42)

    assert got.point == pytest.approx(compute(values), abs=TOL)
    assert (got.low, got.high) == (
        pytest.approx(low, abs=TOL),
        pytest.approx(high, abs=TOL),
    )
    assert (got.resamples, got.episodes, got.strata) == (MIN_RESAMPLES, 100, 4)


def test_the_same_seed_gives_the_same_interval_and_another_seed_another() -> None:
    values, strata = episodes(2)

    first = bootstrap_interval(values, strata, seed=5)

    assert bootstrap_interval(values, strata, seed=5) == first
    assert bootstrap_interval(values, strata, seed=6).low != first.low


def test_the_bootstrap_interval_shrinks_with_more_episodes() -> None:
    small = bootstrap_interval(*episodes(3, per_map=12))
    large = bootstrap_interval(*episodes(3, per_map=300))

    assert large.high - large.low < (small.high - small.low) / 2


def test_fewer_than_2000_resamples_is_refused_naming_the_field() -> None:
    values, strata = episodes(4)

    with pytest.raises(StatsInputError, match="^resamples"):
        bootstrap_interval(values, strata, resamples=500)


def test_one_map_per_episode_is_required() -> None:
    with pytest.raises(StatsInputError, match="^strata"):
        bootstrap_interval([1.0, 2.0], ["m"])


def test_probability_of_improvement_pairs_episodes_by_seed() -> None:
    a = {1: 5.0, 2: 3.0, 3: 2.0, 4: 1.0, 9: 100.0}
    b = {1: 4.0, 2: 3.0, 3: 6.0, 4: 0.0, 8: -100.0}
    maps = dict.fromkeys(range(10), "m")

    got = probability_of_improvement(a, b, maps, seed=0)

    # seeds 1..4: win, tie, loss, win -> (1 + 0.5 + 0 + 1) / 4
    assert got.point == pytest.approx(0.625, abs=TOL)
    assert got.episodes == 4
    assert 0.0 <= got.low <= got.point <= got.high <= 1.0


def test_probability_of_improvement_flips_with_the_direction() -> None:
    a = {s: float(s) for s in range(40)}
    b = {s: float(s) - 0.5 for s in range(40)}
    maps = {s: f"m{s % 2}" for s in range(40)}

    assert probability_of_improvement(a, b, maps).point == 1.0
    assert probability_of_improvement(a, b, maps, higher_is_better=False).point == 0.0


def test_probability_of_improvement_matches_a_loop_over_the_same_draws() -> None:
    rng = np.random.default_rng(7)
    seeds = list(range(60))
    a = {s: float(rng.normal(0.2)) for s in seeds}
    b = {s: float(rng.normal()) for s in seeds}
    maps = {s: f"m{s % 3}" for s in seeds}
    labels = [maps[s] for s in seeds]
    rows = stratified_indices(labels, MIN_RESAMPLES, np.random.default_rng(11))

    def share(picks: list[int]) -> float:
        wins = [
            1.0
            if a[seeds[i]] > b[seeds[i]]
            else 0.5
            if a[seeds[i]] == b[seeds[i]]
            else 0.0
            for i in picks
        ]
        return statistics.fmean(wins)

    low, high = np.percentile([share(row.tolist()) for row in rows], [2.5, 97.5])

    got = probability_of_improvement(a, b, maps, seed=11)

    assert (got.low, got.high) == (
        pytest.approx(low, abs=TOL),
        pytest.approx(high, abs=TOL),
    )


def test_batches_without_a_shared_seed_are_refused() -> None:
    with pytest.raises(StatsInputError, match="^seeds"):
        probability_of_improvement({1: 1.0}, {2: 1.0}, {1: "m", 2: "m"})


def test_the_performance_profile_is_the_share_above_each_threshold() -> None:
    values = [0.0, 1.0, 1.0, 2.0, 5.0]

    got = performance_profile(values, [-1.0, 0.0, 1.0, 4.99, 5.0])

    assert got == [(-1.0, 1.0), (0.0, 0.8), (1.0, 0.4), (4.99, 0.2), (5.0, 0.0)]
