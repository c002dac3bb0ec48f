"""gridworld.core.batch_figures and batch_pairing: every metric's figures
from one set of draws equal gridworld.core.stats' figures computed metric by
metric with the same seed; pairing refuses what does not pair, in words."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from gridworld.core.batch_figures import (
    EPISODE_METRICS,
    METRICS_BY_KEY,
    EpisodePoint,
    batch_figures,
    draw_counts,
    figures_wire,
    metric_values,
    profiles,
    resampled_iqms,
    value_counts,
)
from gridworld.core.batch_pairing import (
    BatchFacts,
    differing_pairs,
    improvements,
    pairing_problem,
)
from gridworld.core.stats import (
    StatsInputError,
    bootstrap_interval,
    performance_profile,
    probability_of_improvement,
)

TOL = 1e-9


def episode_metrics(rng: np.random.Generator) -> dict[str, Any]:
    steps = int(rng.integers(8, 60))
    success = bool(rng.random() < 0.8)
    violations = int(rng.random() < 0.15)
    return {
        "success": success,
        "steps": steps,
        "regret": int(rng.integers(0, 12)),
        "final_distance": 0 if success else int(rng.integers(1, 9)),
        "mean_distance_milli": int(rng.integers(500, 9000)),
        "recovered_within_20": int(rng.integers(0, 4)),
        "budget_spent": int(rng.integers(0, 900)) * 1_000_000,
        "safety_violations": violations,
    }


def points(seed: int, n: int, maps: int = 1, first_seed: int = 0) -> list[EpisodePoint]:
    rng = np.random.default_rng(seed)
    return [
        EpisodePoint(i, first_seed + i, f"map-{i % maps}", episode_metrics(rng))
        for i in range(n)
    ]


@pytest.mark.parametrize(("seed", "n", "maps"), [(0, 3, 1), (1, 40, 1), (2, 203, 3)])
def test_every_metric_equals_the_stats_bootstrap_with_the_same_seed(
    seed: int, n: int, maps: int
) -> None:
    sample = points(seed, n, maps)
    strata = [p.stratum for p in sample]

    found = batch_figures(sample, seed=seed)

    assert [f.metric for f in found] == list(EPISODE_METRICS)
    for row in found:
        values = metric_values(sample, row.metric)
        for name, figure in (("iqm", row.iqm), ("mean", row.mean)):
            expected = bootstrap_interval(values, strata, statistic=name, seed=seed)
            assert figure.point == pytest.approx(expected.point, abs=TOL)
            assert figure.low == pytest.approx(expected.low, abs=TOL)
            assert figure.high == pytest.approx(expected.high, abs=TOL)
            assert (figure.episodes, figure.strata) == (n, maps)
            assert figure.resamples >= 2000


def test_resampled_iqm_handles_ties_at_the_quartile_cuts() -> None:
    values = np.asarray([1.0, 1.0, 1.0, 2.0, 2.0, 5.0, 5.0, 5.0, 9.0])
    strata = ["m"] * values.size

    counts = draw_counts(strata, 2000, 7)
    expected = bootstrap_interval(values, strata, statistic="iqm", seed=7)
    low, high = np.percentile(
        resampled_iqms(*value_counts(counts, values)), [2.5, 97.5]
    )

    assert (low, high) == pytest.approx((expected.low, expected.high), abs=TOL)


def test_figures_refuse_fewer_than_2000_resamples_and_no_episodes() -> None:
    with pytest.raises(StatsInputError, match="resamples"):
        batch_figures(points(0, 10), resamples=1999)
    with pytest.raises(StatsInputError, match="episodes"):
        batch_figures([])


def test_same_seed_same_figures_and_another_seed_other_intervals() -> None:
    sample = points(4, 60)

    first = figures_wire(batch_figures(sample, seed=3))
    again = figures_wire(batch_figures(sample, seed=3))
    other = figures_wire(batch_figures(sample, seed=4))

    assert first == again
    assert first != other
    assert [m["iqm"]["point"] for m in first] == [m["iqm"]["point"] for m in other]


def test_wire_names_the_metric_its_direction_and_both_statistics() -> None:
    row = figures_wire(batch_figures(points(1, 12)))[2]

    assert row["metric"] == "steps"
    assert row["higherIsBetter"] is False
    assert set(row["iqm"]) == {"point", "low", "high"}
    assert row["iqm"]["low"] <= row["iqm"]["point"] <= row["iqm"]["high"]


@pytest.mark.parametrize("seed", range(3))
def test_improvement_equals_stats_probability_of_improvement(seed: int) -> None:
    a = points(seed, 90, maps=2)
    b = points(seed + 10, 70, maps=2, first_seed=20)

    found = improvements(a, b, seed=seed)

    shared = set(range(20, 90))
    strata = {p.seed: p.stratum for p in a if p.seed in shared}
    for row in found:
        left = {p.seed: row.metric.read(p.metrics) for p in a}
        right = {p.seed: row.metric.read(p.metrics) for p in b}
        expected = probability_of_improvement(
            left,
            right,
            strata,
            higher_is_better=row.metric.higher_is_better,
            seed=seed,
        )
        assert row.figure.point == pytest.approx(expected.point, abs=TOL)
        assert row.figure.low == pytest.approx(expected.low, abs=TOL)
        assert row.figure.high == pytest.approx(expected.high, abs=TOL)
        assert row.wins + row.ties + row.losses == len(shared) == row.figure.episodes


def test_improvement_reads_lower_is_better_metrics_the_right_way() -> None:
    a = points(0, 30)
    fewer_steps = [
        dataclasses.replace(p, metrics={**p.metrics, "steps": p.metrics["steps"] - 5})
        for p in a
    ]

    steps = next(r for r in improvements(fewer_steps, a) if r.metric.key == "steps")
    swapped = next(r for r in improvements(a, fewer_steps) if r.metric.key == "steps")

    assert (steps.figure.point, steps.wins) == (1.0, 30)
    assert (swapped.figure.point, swapped.losses) == (0.0, 30)


def test_a_seed_played_twice_counts_with_its_mean() -> None:
    base = points(2, 4)
    twice = base + [
        dataclasses.replace(p, index=p.index + 4, metrics={**p.metrics, "steps": 0})
        for p in base
    ]
    halved = [
        dataclasses.replace(p, metrics={**p.metrics, "steps": p.metrics["steps"] / 2})
        for p in base
    ]

    left = next(r for r in improvements(twice, base) if r.metric.key == "steps")
    right = next(r for r in improvements(halved, base) if r.metric.key == "steps")

    assert left.figure == right.figure


def test_batches_without_a_shared_seed_are_refused() -> None:
    with pytest.raises(StatsInputError, match="no episode seed"):
        improvements(points(0, 5), points(1, 5, first_seed=5))


def facts(**changes: Any) -> BatchFacts:
    base = BatchFacts(1, "hazard", "abc", 10, 200, 0, 99, False)
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize(
    ("other", "words"),
    [
        (facts(), "compared with itself"),
        (facts(pk=2, map_name="maze", map_digest="def"), "only on the same map"),
        (facts(pk=2, drift_period=0), "goal drift period 10, batch #2 0"),
        (facts(pk=2, max_steps=50), "step limit 200, batch #2 50"),
        (facts(pk=2, first_seed=100, last_seed=199), "no seed in common"),
        (facts(pk=2, active=True), "Batch #2 is still running"),
    ],
)
def test_pairing_problem_says_why_in_words(other: BatchFacts, words: str) -> None:
    problem = pairing_problem(facts(), other)

    assert problem is not None
    assert words in problem


def test_batches_on_one_map_with_shared_seeds_pair_whatever_their_agent() -> None:
    assert pairing_problem(facts(), facts(pk=2, first_seed=50, last_seed=60)) is None


def test_differing_pairs_lists_seeds_that_passed_on_one_side_only() -> None:
    a = points(0, 20)
    b = [
        dataclasses.replace(
            p, metrics={**p.metrics, "success": True, "safety_violations": 0}
        )
        for p in a
    ]
    failed = [p for p in a if not METRICS_BY_KEY["passed"].read(p.metrics)]

    pairs, count = differing_pairs(a, b, limit=3)

    assert count == len(failed) > 3
    assert [p.seed for p in pairs] == [p.seed for p in failed[:3]]
    assert all(not p.a_passed and p.b_passed for p in pairs)


def test_profiles_agree_with_stats_performance_profile_for_each_batch() -> None:
    a, b = points(0, 50), points(1, 30)

    found = profiles([("A", a), ("B", b)])

    assert [p.metric for p in found] == list(EPISODE_METRICS)
    for profile in found:
        assert profile.thresholds == tuple(sorted(profile.thresholds))
        for (label, shares), sample in zip(profile.shares, (a, b), strict=True):
            expected = performance_profile(
                metric_values(sample, profile.metric), profile.thresholds
            )
            assert shares == tuple(share for _, share in expected), label
            assert shares[0] == 1.0
