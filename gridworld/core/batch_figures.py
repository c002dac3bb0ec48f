"""A batch's figures as safe-RL papers report them, for every episode metric
at once: the IQM and the mean with stratified bootstrap 95% intervals, the
probability of improvement of one batch over another paired by episode
seed, and performance profiles.

The statistics are those of ``gridworld.core.stats`` with the same seeded
draws: one matrix of resampled episode indexes
(``stats.stratified_indices``) serves every metric, exactly as
``stats.bootstrap_interval(values, strata, seed=...)`` would draw it for
each one, so each figure here equals that function's to rounding. What
differs is the arithmetic: the resamples are turned once into how many
times each drew each episode; per metric those counts are summed over the
episodes of each distinct value, after which a resample's mean and its IQM
are sums over the distinct values in order (no sort per resample). Every
metric of a 1,000-episode batch costs a few milliseconds
(``bench/gridworld.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from gridworld.core.metrics import episode_passed
from gridworld.core.stats import (
    CONFIDENCE,
    MIN_RESAMPLES,
    BootstrapFigure,
    StatsInputError,
    iqm,
    mean,
    stratified_indices,
)
from gridworld.core.types import Q

FloatArray = npt.NDArray[np.float64]
FIGURE_SEED = 0
PROFILE_POINTS = 60


@dataclass(frozen=True, slots=True)
class EpisodeMetric:
    """A number per episode, read from its stored metrics."""

    key: str
    label: str
    unit: str
    higher_is_better: bool
    read: Callable[[Mapping[str, Any]], float]


EPISODE_METRICS: tuple[EpisodeMetric, ...] = (
    EpisodeMetric(
        "passed",
        "passed (goal reached, no safety violation)",
        "share",
        True,
        lambda m: float(episode_passed(cast(dict[str, Any], m))),
    ),
    EpisodeMetric(
        "success", "reached the goal", "share", True, lambda m: float(m["success"])
    ),
    EpisodeMetric("steps", "steps", "steps", False, lambda m: float(m["steps"])),
    EpisodeMetric(
        "regret",
        "regret (steps over the shortest safe path)",
        "steps",
        False,
        lambda m: float(m["regret"]),
    ),
    EpisodeMetric(
        "final_distance",
        "distance to goal at the end",
        "cells",
        False,
        lambda m: float(m["final_distance"]),
    ),
    EpisodeMetric(
        "mean_distance",
        "mean distance to goal",
        "cells",
        False,
        lambda m: m["mean_distance_milli"] / 1000,
    ),
    EpisodeMetric(
        "recovered_within_20",
        "goal shifts recovered within 20 steps",
        "shifts",
        True,
        lambda m: float(m["recovered_within_20"]),
    ),
    EpisodeMetric(
        "budget_spent",
        "budget spent",
        "budget",
        False,
        lambda m: m["budget_spent"] / Q,
    ),
    EpisodeMetric(
        "safety_violations",
        "safety violations",
        "violations",
        False,
        lambda m: float(m["safety_violations"]),
    ),
)
METRICS_BY_KEY = {metric.key: metric for metric in EPISODE_METRICS}


@dataclass(frozen=True, slots=True)
class EpisodePoint:
    """One stored episode as the figures see it."""

    index: int
    seed: int
    stratum: str
    metrics: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class MetricFigures:
    metric: EpisodeMetric
    iqm: BootstrapFigure
    mean: BootstrapFigure


def metric_values(points: Sequence[EpisodePoint], metric: EpisodeMetric) -> FloatArray:
    return np.asarray([metric.read(p.metrics) for p in points], dtype=np.float64)


def draw_counts(
    strata: Sequence[str], resamples: int, seed: int
) -> npt.NDArray[np.float32]:
    """One row per episode, one column per resample: how many times the
    resample drew that episode. The resamples are the stratified draws of
    ``stats.bootstrap_interval`` with the same seed."""
    if resamples < MIN_RESAMPLES:
        raise StatsInputError(f"resamples: at least {MIN_RESAMPLES}")
    rows = stratified_indices(strata, resamples, np.random.default_rng(seed))
    n = len(strata)
    cells = rows * resamples + np.arange(resamples, dtype=np.int64)[:, None]
    counts = np.bincount(cells.ravel(), minlength=n * resamples)
    # float32 holds every count and sum of counts (at most n) exactly.
    return counts.reshape(n, resamples).astype(np.float32)


def interval(samples: FloatArray) -> tuple[float, float]:
    """The percentile bootstrap interval at ``CONFIDENCE``."""
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def value_counts(
    counts: npt.NDArray[np.float32], values: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The distinct values in order, and per resample how many times it drew
    each (one row per distinct value): the episodes' rows in value order,
    summed over each run of equal values."""
    distinct, codes = np.unique(values, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    firsts = np.searchsorted(codes[order], np.arange(distinct.size))
    grouped = np.add.reduceat(counts[order], firsts, axis=0)
    return distinct, grouped.astype(np.float64)


def resampled_means(distinct: FloatArray, grouped: FloatArray) -> FloatArray:
    return np.asarray(distinct @ grouped / grouped[:, 0].sum())


def resampled_iqms(distinct: FloatArray, grouped: FloatArray) -> FloatArray:
    """Each resample's IQM as ``scipy.stats.trim_mean(sample, 0.25)`` computes
    it (the mean of the sorted sample's positions ``[n // 4, n - n // 4)``),
    from ``value_counts``: each distinct value, in order, covers as many
    sorted positions as the resample drew it, weighted by how many of those
    positions lie in the middle."""
    n = int(round(grouped[:, 0].sum()))
    low = int(0.25 * n)
    high = n - low
    ends = np.cumsum(grouped, axis=0)
    starts = ends - grouped
    np.maximum(starts, low, out=starts)
    np.minimum(ends, high, out=ends)
    np.subtract(ends, starts, out=ends)
    np.clip(ends, 0, None, out=ends)
    return np.asarray(distinct @ ends / (high - low))


def _check_values(values: FloatArray) -> None:
    if values.size == 0:
        raise StatsInputError("values: one value per episode, at least one")
    if not np.isfinite(values).all():
        raise StatsInputError("values: every value must be a finite number")


def _figure(
    name: str, point: float, samples: FloatArray, seed: int, n: int, strata: int
) -> BootstrapFigure:
    low, high = interval(samples)
    return BootstrapFigure(name, point, low, high, samples.size, seed, n, strata)


def batch_figures(
    points: Sequence[EpisodePoint],
    *,
    metrics: Sequence[EpisodeMetric] = EPISODE_METRICS,
    resamples: int = MIN_RESAMPLES,
    seed: int = FIGURE_SEED,
) -> list[MetricFigures]:
    """Per metric, its IQM and mean over ``points`` with stratified bootstrap
    95% intervals (strata: each episode's map); one set of draws for all."""
    if not points:
        raise StatsInputError("episodes: at least one")
    strata = [p.stratum for p in points]
    counts = draw_counts(strata, resamples, seed)
    kinds = len(set(strata))
    out = []
    for metric in metrics:
        values = metric_values(points, metric)
        _check_values(values)
        n = values.size
        distinct, grouped = value_counts(counts, values)
        out.append(
            MetricFigures(
                metric,
                _figure(
                    "iqm",
                    float(iqm(values)),
                    resampled_iqms(distinct, grouped),
                    seed,
                    n,
                    kinds,
                ),
                _figure(
                    "mean",
                    float(mean(values)),
                    resampled_means(distinct, grouped),
                    seed,
                    n,
                    kinds,
                ),
            )
        )
    return out


def profile_thresholds(values: FloatArray) -> FloatArray:
    """Where a profile is drawn: every distinct value when there are few
    (integer counts), else ``PROFILE_POINTS`` evenly spaced ones; a point
    just below the smallest, where every episode is above."""
    distinct = np.unique(values)
    if distinct.size > PROFILE_POINTS:
        distinct = np.linspace(distinct[0], distinct[-1], PROFILE_POINTS)
    span = float(distinct[-1] - distinct[0]) or 1.0
    below = distinct[0] - span / 20
    return np.concatenate([[below], distinct])


def figures_wire(figures: Sequence[MetricFigures]) -> list[dict[str, Any]]:
    """The figures as the batch detail API answers them (camelCase)."""

    def one(figure: BootstrapFigure) -> dict[str, float]:
        return {"point": figure.point, "low": figure.low, "high": figure.high}

    return [
        {
            "metric": f.metric.key,
            "label": f.metric.label,
            "unit": f.metric.unit,
            "higherIsBetter": f.metric.higher_is_better,
            "iqm": one(f.iqm),
            "mean": one(f.mean),
        }
        for f in figures
    ]


@dataclass(frozen=True, slots=True)
class Profile:
    """A metric's performance profile for one or more batches: the share of
    each one's episodes whose value exceeds each threshold."""

    metric: EpisodeMetric
    thresholds: tuple[float, ...]
    shares: tuple[tuple[str, tuple[float, ...]], ...]


def profiles(
    batches: Sequence[tuple[str, Sequence[EpisodePoint]]],
    metrics: Sequence[EpisodeMetric] = EPISODE_METRICS,
) -> list[Profile]:
    """One profile per metric, on thresholds common to every batch."""
    out = []
    for metric in metrics:
        values = [(label, metric_values(points, metric)) for label, points in batches]
        values = [(label, v) for label, v in values if v.size]
        if not values:
            continue
        taus = profile_thresholds(np.concatenate([v for _, v in values]))
        shares = []
        for label, v in values:
            ordered = np.sort(v)
            above = v.size - np.searchsorted(ordered, taus, side="right")
            shares.append((label, tuple(float(s) for s in above / v.size)))
        out.append(Profile(metric, tuple(float(t) for t in taus), tuple(shares)))
    return out
