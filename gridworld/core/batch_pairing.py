"""Two batches side by side: whether their episodes can be paired by seed,
and the probability that batch A's episode beats batch B's on the same seed,
per metric, with its stratified bootstrap 95% interval.

An episode's seed names its task (start, drift schedule) only on one map
with one goal drift period and one step limit: batches that differ there
are refused in words. Proposer, governor, budget and lane size may differ:
they are what such a comparison measures. The figure is
``stats.probability_of_improvement`` with the same seeded draws, for every
metric from one set of draws (see ``gridworld.core.batch_figures``); a seed
played more than once in a batch counts with the mean of its episodes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridworld.core.batch_figures import (
    EPISODE_METRICS,
    FIGURE_SEED,
    EpisodeMetric,
    EpisodePoint,
    draw_counts,
    interval,
    metric_values,
)
from gridworld.core.stats import MIN_RESAMPLES, BootstrapFigure, StatsInputError

PAIR_ROWS = 50
METRIC_PASSED = EPISODE_METRICS[0]


@dataclass(frozen=True, slots=True)
class BatchFacts:
    """What decides whether two batches' episodes pair by seed."""

    pk: int
    map_name: str
    map_digest: str
    drift_period: int
    max_steps: int
    first_seed: int
    last_seed: int
    active: bool


@dataclass(frozen=True, slots=True)
class Improvement:
    metric: EpisodeMetric
    figure: BootstrapFigure
    wins: int
    ties: int
    losses: int


@dataclass(frozen=True, slots=True)
class Pair:
    """A seed both batches played, with each side's episode index."""

    seed: int
    a_index: int
    b_index: int
    a_passed: bool
    b_passed: bool


def pairing_problem(a: BatchFacts, b: BatchFacts) -> str | None:
    """Why the episodes of ``a`` and ``b`` cannot be paired, or ``None``."""
    if a.pk == b.pk:
        return "A batch compared with itself: pick another batch."
    if a.map_digest != b.map_digest:
        return (
            f"Batch #{a.pk} plays map {a.map_name}, batch #{b.pk} map {b.map_name}: "
            "an episode seed names the same task only on the same map. "
            "Pick a batch on the same map."
        )
    for field, words in (
        ("drift_period", "goal drift period"),
        ("max_steps", "step limit"),
    ):
        left, right = getattr(a, field), getattr(b, field)
        if left != right:
            return (
                f"Batch #{a.pk} has {words} {left}, batch #{b.pk} {right}: the same "
                "seed is a different task. Pick a batch with the same "
                f"{words}."
            )
    if a.last_seed < b.first_seed or b.last_seed < a.first_seed:
        return (
            f"Batch #{a.pk} played seeds {a.first_seed} to {a.last_seed}, batch "
            f"#{b.pk} seeds {b.first_seed} to {b.last_seed}: no seed in common "
            "to pair."
        )
    for facts in (a, b):
        if facts.active:
            return f"Batch #{facts.pk} is still running: compare when it finishes."
    return None


def _by_seed(points: Sequence[EpisodePoint]) -> dict[int, list[EpisodePoint]]:
    out: dict[int, list[EpisodePoint]] = defaultdict(list)
    for point in points:
        out[point.seed].append(point)
    return out


def _seed_means(
    points: Sequence[EpisodePoint], seeds: Sequence[int], metric: EpisodeMetric
) -> np.ndarray:
    """The metric's mean over each seed's episodes, for ``seeds`` in order."""
    where = {seed: position for position, seed in enumerate(seeds)}
    kept = [(where[p.seed], p) for p in points if p.seed in where]
    positions = np.asarray([k for k, _ in kept], dtype=np.int64)
    values = metric_values([p for _, p in kept], metric)
    total = np.bincount(positions, weights=values, minlength=len(seeds))
    return np.asarray(total / np.bincount(positions, minlength=len(seeds)))


def improvements(
    a: Sequence[EpisodePoint],
    b: Sequence[EpisodePoint],
    *,
    metrics: Sequence[EpisodeMetric] = EPISODE_METRICS,
    resamples: int = MIN_RESAMPLES,
    seed: int = FIGURE_SEED,
) -> list[Improvement]:
    """Per metric, P(A's episode is better than B's on the same seed), ties
    counting half ("better" in the metric's direction), over the shared
    seeds, stratified by map."""
    strata = {p.seed: p.stratum for p in a}
    seeds = sorted(strata.keys() & {p.seed for p in b})
    if not seeds:
        raise StatsInputError("seeds: the batches share no episode seed")
    labels = [strata[s] for s in seeds]
    counts = draw_counts(labels, resamples, seed)
    kinds = len(set(labels))
    out = []
    for metric in metrics:
        sign = 1.0 if metric.higher_is_better else -1.0
        left = sign * _seed_means(a, seeds, metric)
        right = sign * _seed_means(b, seeds, metric)
        wins = left > right
        ties = left == right
        share = wins + 0.5 * ties
        # Sums of rows, not a matrix product: exact, and no BLAS threads.
        drawn = counts[wins].sum(axis=0, dtype=np.float64)
        drawn += 0.5 * counts[ties].sum(axis=0, dtype=np.float64)
        samples = drawn / share.size
        low, high = interval(samples)
        figure = BootstrapFigure(
            "probability_of_improvement",
            float(np.mean(share)),
            low,
            high,
            resamples,
            seed,
            len(seeds),
            kinds,
        )
        won, tied = int(wins.sum()), int(ties.sum())
        out.append(Improvement(metric, figure, won, tied, len(seeds) - won - tied))
    return out


def differing_pairs(
    a: Sequence[EpisodePoint], b: Sequence[EpisodePoint], limit: int = PAIR_ROWS
) -> tuple[list[Pair], int]:
    """Shared seeds whose episodes passed on one side only (the receipts to
    read first), at most ``limit`` in seed order, and how many there are."""
    left, right = _by_seed(a), _by_seed(b)
    found = []
    for seed in sorted(left.keys() & right.keys()):
        one, two = left[seed][0], right[seed][0]
        a_passed = METRIC_PASSED.read(one.metrics) > 0
        b_passed = METRIC_PASSED.read(two.metrics) > 0
        if a_passed != b_passed:
            found.append(Pair(seed, one.index, two.index, a_passed, b_passed))
    return found[:limit], len(found)
