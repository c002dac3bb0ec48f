"""Episode-batch figures as safe-RL papers report them (Agarwal et al. 2021,
"Deep RL at the edge of the statistical precipice"; rliable).

- ``iqm``: the interquartile mean, the mean of the middle 50% of episodes
  (``scipy.stats.trim_mean(x, 0.25)``, as rliable computes it);
- ``bootstrap_interval``: a statistic (IQM or mean) with a stratified
  percentile bootstrap 95% interval: each resample draws, within every map,
  as many episodes as that map has, with replacement; seeded, vectorised,
  at least 2,000 resamples;
- ``probability_of_improvement``: ``P(a > b) + P(a = b) / 2`` over episodes
  of two batches paired by their seed, with the same stratified bootstrap
  over the pairs;
- ``performance_profile``: for thresholds tau, the share of episodes whose
  value exceeds tau.

Pure numpy/scipy; the same seed gives the same figures.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import numpy.typing as npt


def _sps() -> ModuleType:
    """scipy.stats, imported on first use: it costs about half a second, which
    every process that loads the app registry (each manage.py command, the
    plain gate) would otherwise pay without computing an interval."""
    return importlib.import_module("scipy.stats")


FloatArray = npt.NDArray[np.float64]
Statistic = Callable[[FloatArray], FloatArray]  # rows of resamples -> one per row

MIN_RESAMPLES = 2000
CONFIDENCE = 0.95


class StatsInputError(ValueError):
    """Episode data the figures cannot use; the message names the field."""


@dataclass(frozen=True, slots=True)
class BootstrapFigure:
    statistic: str
    point: float
    low: float
    high: float
    resamples: int
    seed: int
    episodes: int
    strata: int


def iqm(values: npt.ArrayLike, axis: int = -1) -> FloatArray:
    """The interquartile mean along ``axis``."""
    return np.asarray(
        _sps().trim_mean(np.asarray(values, dtype=np.float64), 0.25, axis=axis)
    )


def mean(values: npt.ArrayLike, axis: int = -1) -> FloatArray:
    return np.asarray(np.mean(np.asarray(values, dtype=np.float64), axis=axis))


STATISTICS: Mapping[str, Callable[[npt.ArrayLike, int], FloatArray]] = {
    "iqm": iqm,
    "mean": mean,
}


def _strata_rows(strata: Sequence[str]) -> list[npt.NDArray[np.int64]]:
    labels = np.asarray(strata, dtype=object)
    return [np.flatnonzero(labels == label) for label in sorted(set(strata))]


def stratified_indices(
    strata: Sequence[str], resamples: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """``resamples`` rows of episode indexes, each row drawing within every
    stratum as many indexes as it has, with replacement (strata in sorted
    order, columns grouped by stratum)."""
    blocks = []
    for rows in _strata_rows(strata):
        picks = rng.integers(0, len(rows), size=(resamples, len(rows)))
        blocks.append(rows[picks])
    return np.concatenate(blocks, axis=1)


def _check(values: FloatArray, strata: Sequence[str], resamples: int) -> None:
    if values.ndim != 1 or values.size == 0:
        raise StatsInputError("values: one value per episode, at least one")
    if not np.isfinite(values).all():
        raise StatsInputError("values: every value must be a finite number")
    if len(strata) != values.size:
        raise StatsInputError("strata: one map per episode")
    if resamples < MIN_RESAMPLES:
        raise StatsInputError(f"resamples: at least {MIN_RESAMPLES}")


def _percentiles(samples: FloatArray) -> tuple[float, float]:
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_interval(
    values: Sequence[float] | FloatArray,
    strata: Sequence[str],
    *,
    statistic: str = "iqm",
    resamples: int = MIN_RESAMPLES,
    seed: int = 0,
) -> BootstrapFigure:
    """``statistic`` of the episodes with its stratified bootstrap interval."""
    data = np.asarray(values, dtype=np.float64)
    _check(data, strata, resamples)
    if statistic not in STATISTICS:
        raise StatsInputError(f"statistic: one of {', '.join(sorted(STATISTICS))}")
    compute = STATISTICS[statistic]
    rng = np.random.default_rng(seed)
    samples = compute(data[stratified_indices(strata, resamples, rng)], 1)
    low, high = _percentiles(samples)
    return BootstrapFigure(
        statistic,
        float(compute(data, -1)),
        low,
        high,
        resamples,
        seed,
        int(data.size),
        len(set(strata)),
    )


def _win_share(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.asarray(np.mean((a > b) + 0.5 * (a == b), axis=-1))


def probability_of_improvement(
    a: Mapping[int, float],
    b: Mapping[int, float],
    strata: Mapping[int, str],
    *,
    higher_is_better: bool = True,
    resamples: int = MIN_RESAMPLES,
    seed: int = 0,
) -> BootstrapFigure:
    """P(batch A's episode beats B's on the same seed), ties half, with a
    stratified bootstrap over the shared seeds. ``a``/``b``: seed -> value;
    ``strata``: seed -> map. Seeds in one batch only are not paired."""
    seeds = sorted(a.keys() & b.keys())
    if not seeds:
        raise StatsInputError("seeds: the batches share no episode seed")
    missing = [seed for seed in seeds if seed not in strata]
    if missing:
        raise StatsInputError(f"strata: no map for seed {missing[0]}")
    sign = 1.0 if higher_is_better else -1.0
    left = sign * np.asarray([a[s] for s in seeds], dtype=np.float64)
    right = sign * np.asarray([b[s] for s in seeds], dtype=np.float64)
    labels = [strata[s] for s in seeds]
    _check(left, labels, resamples)
    _check(right, labels, resamples)
    rows = stratified_indices(labels, resamples, np.random.default_rng(seed))
    low, high = _percentiles(_win_share(left[rows], right[rows]))
    return BootstrapFigure(
        "probability_of_improvement",
        float(_win_share(left, right)),
        low,
        high,
        resamples,
        seed,
        len(seeds),
        len(set(labels)),
    )


def performance_profile(
    values: Sequence[float] | FloatArray, thresholds: Sequence[float] | FloatArray
) -> list[tuple[float, float]]:
    """``(tau, share of episodes with value > tau)`` for each threshold."""
    data = np.sort(np.asarray(values, dtype=np.float64))
    if data.size == 0:
        raise StatsInputError("values: at least one episode")
    taus = np.asarray(thresholds, dtype=np.float64)
    above = data.size - np.searchsorted(data, taus, side="right")
    return [
        (float(tau), float(share))
        for tau, share in zip(taus, above / data.size, strict=True)
    ]
