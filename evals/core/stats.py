"""One run's figures with their uncertainty: epochs, reducers, the estimate.

A run may try each scenario K times (epochs). Scenarios, not attempts, are
the independent units: the K attempts of one scenario share its difficulty.
So a run's figure is computed in two steps:

1. each scenario's K values are *reduced* to one value (``Reducer``: the
   mean by default, the majority, the max, the unbiased ``pass_at_k``
   ``1 - C(n-c, k) / C(n, k)`` or ``pass^k`` ``C(c, k) / C(n, k)``, with n the
   scenario's epochs and c those that passed, a value >= 1);
2. the estimate is the mean of the n scenario values, its standard error
   ``sd(scenario values) / sqrt(n)`` (clustered by scenario: with K = 1 it
   is the ordinary standard error), its 95% interval the t interval with
   n - 1 degrees of freedom, or Wilson's score interval when every scenario
   value is 0 or 1 and n < 30 or the rate is 0 or 1.

The variance is split into between-scenario and within-scenario parts
(one-way random effects, method of moments) with the design effect
``1 + (K - 1) * ICC``; ``advice`` says in one sentence whether more repeats
or more scenarios would narrow the interval more. docs/statistics.md has
every formula and a worked example. Reducer names, their parsing and the
input error live in ``evals.core.stats_input`` (no numpy: the command line
parses them without importing the numerics).

Case ids carry the epoch as ``<scenario>#<epoch>`` (digits after the last
``#``); an id without it is its scenario's only epoch. Pure numpy/scipy;
the t and normal quantiles from ``evals.core.stats_dist`` (``scipy.special``,
no ``scipy.stats``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evals.core.stats_dist import norm_ppf, t_ppf
from evals.core.stats_input import (
    MAX_REPEATS,
    MEAN,
    Reducer,
    ReducerKind,
    StatInputError,
)

FloatArray = npt.NDArray[np.float64]

CONFIDENCE = 0.95
WILSON_BELOW_N = 30
_EPOCH_SEPARATOR = "#"


def split_epoch(case_id: str) -> tuple[str, int]:
    """``"s1#3"`` -> ``("s1", 3)``; an id without an epoch is epoch 0."""
    scenario, separator, tail = case_id.rpartition(_EPOCH_SEPARATOR)
    if separator and tail.isdigit() and scenario:
        return scenario, int(tail)
    return case_id, 0


@dataclass(frozen=True, slots=True)
class Epochs:
    """A run's values per scenario: ``values[i, j]`` is epoch j of scenario
    ``scenarios[i]``, NaN past that scenario's ``counts[i]`` epochs."""

    scenarios: tuple[str, ...]
    values: FloatArray
    counts: npt.NDArray[np.int64]

    @property
    def n(self) -> int:
        return len(self.scenarios)

    @property
    def k(self) -> int:
        """The most epochs any scenario has (K)."""
        return int(self.counts.max()) if self.n else 0


@dataclass(frozen=True, slots=True)
class CaseGroups:
    """Where each case of a run goes in its ``Epochs`` (scenario row, epoch
    column): computed once per run, shared by every metric of its cases."""

    scenarios: tuple[str, ...]
    rows: npt.NDArray[np.int64]
    columns: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]

    def epochs(self, values: Sequence[float]) -> Epochs:
        """The cases' ``values`` (in case order) as ``Epochs``;
        ``StatInputError`` naming ``values`` when one is not finite or their
        number differs from the cases'."""
        if len(values) != len(self.rows):
            raise StatInputError("values", "one value per case id is needed")
        flat = np.asarray(values, dtype=np.float64)
        if flat.size and not np.isfinite(flat).all():
            raise StatInputError("values", "every value must be a finite number")
        width = int(self.counts.max()) if len(self.scenarios) else 1
        matrix = np.full((len(self.scenarios), width), np.nan)
        matrix[self.rows, self.columns] = flat
        return Epochs(self.scenarios, matrix, self.counts)


def group_cases(
    case_ids: Sequence[str], *, max_repeats: int = MAX_REPEATS
) -> CaseGroups:
    """Group case ids by scenario (``split_epoch``), scenarios sorted by
    name, epochs in case order. ``StatInputError`` naming ``repeats`` when a
    scenario has more than ``max_repeats`` epochs."""
    first_seen: dict[str, int] = {}
    seen_rows: list[int] = []
    for case_id in case_ids:
        # split_epoch, inlined: this loop runs once per case result.
        scenario, separator, tail = case_id.rpartition(_EPOCH_SEPARATOR)
        if not (separator and scenario and tail.isdigit()):
            scenario = case_id
        row = first_seen.get(scenario)
        if row is None:
            row = first_seen[scenario] = len(first_seen)
        seen_rows.append(row)
    names = sorted(first_seen)
    rank = np.empty(len(names), dtype=np.int64)
    rank[[first_seen[name] for name in names]] = np.arange(len(names))
    rows = rank[np.asarray(seen_rows, dtype=np.int64)]
    counts = np.bincount(rows, minlength=len(names)).astype(np.int64)
    if len(names) and int(counts.max()) > max_repeats:
        raise StatInputError(
            "repeats",
            f"a scenario has {int(counts.max())} epochs; at most {max_repeats}",
        )
    order = np.argsort(rows, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    columns = np.empty(len(rows), dtype=np.int64)
    columns[order] = np.arange(len(rows)) - np.repeat(starts, counts)
    return CaseGroups(tuple(names), rows, columns, counts)


def epochs_of(
    case_ids: Sequence[str], values: Sequence[float], *, max_repeats: int = MAX_REPEATS
) -> Epochs:
    """Group case values by scenario (``group_cases``), scenarios sorted.

    ``StatInputError`` naming ``repeats`` when a scenario has more than
    ``max_repeats`` epochs, ``values`` when one is not finite."""
    if len(case_ids) != len(values):
        raise StatInputError("values", "one value per case id is needed")
    return group_cases(case_ids, max_repeats=max_repeats).epochs(values)


def _passes(epochs: Epochs) -> FloatArray:
    passed = np.where(np.isnan(epochs.values), 0.0, epochs.values >= 1.0)
    return np.asarray(passed.sum(axis=1), dtype=np.float64)


def _falling_ratio(top: FloatArray, bottom: FloatArray, k: int) -> FloatArray:
    """``C(top, k) / C(bottom, k)`` as ``prod_{i<k} (top - i) / (bottom - i)``."""
    steps = np.arange(k, dtype=np.float64)
    numerators = np.maximum(top[:, None] - steps, 0.0)
    return np.asarray(np.prod(numerators / (bottom[:, None] - steps), axis=1))


def reduce_epochs(epochs: Epochs, reducer: Reducer) -> FloatArray:
    """One value per scenario (module docstring, step 1)."""
    values = epochs.values
    if epochs.n == 0:
        return np.zeros(0)
    counts = epochs.counts.astype(np.float64)
    if reducer.kind is ReducerKind.MEAN:
        return np.asarray(np.nansum(values, axis=1) / counts)
    if reducer.kind is ReducerKind.MAX:
        return np.asarray(np.nanmax(values, axis=1))
    passes = _passes(epochs)
    if reducer.kind is ReducerKind.MAJORITY:
        # A tie is not a majority: half the epochs passing counts as a fail.
        return (2.0 * passes > counts).astype(np.float64)
    if int(epochs.counts.min()) < reducer.k:
        raise StatInputError(
            "reducer",
            f"{reducer.name} needs at least {reducer.k} epochs per scenario; "
            f"a scenario has {int(epochs.counts.min())}",
        )
    if reducer.kind is ReducerKind.PASS_AT_K:
        return 1.0 - _falling_ratio(counts - passes, counts, reducer.k)
    return _falling_ratio(passes, counts, reducer.k)


@dataclass(frozen=True, slots=True)
class Interval:
    low: float
    high: float
    method: str  # "t", "wilson" or "none" (fewer than 2 scenarios)


def t_interval(
    mean: float, se: float, n: int, confidence: float = CONFIDENCE
) -> Interval:
    """``mean +- t_{(1+c)/2, n-1} * se``; no interval below 2 units."""
    if n < 2:
        return Interval(math.nan, math.nan, "none")
    half = t_ppf(0.5 + confidence / 2, n - 1) * se
    return Interval(mean - half, mean + half, "t")


def wilson_interval(rate: float, n: int, confidence: float = CONFIDENCE) -> Interval:
    """Wilson's score interval of a proportion ``rate`` of ``n``."""
    if n < 1:
        return Interval(math.nan, math.nan, "none")
    z = norm_ppf(0.5 + confidence / 2)
    z2 = z * z
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n))
    return Interval(max(0.0, centre - half), min(1.0, centre + half), "wilson")


@dataclass(frozen=True, slots=True)
class Estimate:
    """A run figure with its uncertainty (module docstring, step 2)."""

    estimate: float
    se: float
    interval: Interval
    n: int
    k: int
    reducer: str
    between_variance: float
    within_variance: float
    design_effect: float
    advice: str


def _variance_split(epochs: Epochs) -> tuple[float, float, float]:
    """(between, within, mean epochs) by one-way ANOVA moments; NaN within
    when no scenario has two epochs."""
    counts = epochs.counts.astype(np.float64)
    means = np.nansum(epochs.values, axis=1) / counts
    spare = float((counts - 1).sum())
    mean_k = float(counts.mean())
    if spare <= 0:
        return float(np.var(means, ddof=1)) if epochs.n > 1 else 0.0, math.nan, mean_k
    squares = np.nansum((epochs.values - means[:, None]) ** 2)
    within = float(squares) / spare
    spread = float(np.var(means, ddof=1)) if epochs.n > 1 else 0.0
    between = max(0.0, spread - within * float(np.mean(1.0 / counts)))
    return between, within, mean_k


def _advice(between: float, within: float, n: int, k: float) -> str:
    if n < 2:
        return "With fewer than 2 scenarios there is no interval: add scenarios."
    if math.isnan(within):
        return (
            "With one epoch per scenario the within-scenario noise is unknown; "
            "more scenarios narrow the interval (repeats show how noisy each one is)."
        )
    now = between / n + within / (n * k)
    if now <= 0:
        return "Every scenario gave the same value: the interval has no width."
    more_k = math.sqrt((between / n + within / (2 * n * k)) / now)
    more_n = math.sqrt(0.5)
    k_gain, n_gain = round(100 * (1 - more_k)), round(100 * (1 - more_n))
    which = (
        "more scenarios narrow it more"
        if n_gain > k_gain
        else "more repeats narrow it as much as more scenarios"
    )
    return (
        f"Doubling the repeats (K={k:g}) would narrow the interval by about "
        f"{k_gain}%, doubling the scenarios (n={n}) by about {n_gain}%: {which}."
    )


def estimate(
    epochs: Epochs, reducer: Reducer = MEAN, confidence: float = CONFIDENCE
) -> Estimate:
    """The estimate of a run's figure from its per-case values."""
    reduced = reduce_epochs(epochs, reducer)
    n = epochs.n
    mean = float(reduced.mean()) if n else math.nan
    se = float(np.std(reduced, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    binary = bool(n) and bool(np.isin(reduced, (0.0, 1.0)).all())
    if binary and (n < WILSON_BELOW_N or mean in (0.0, 1.0)):
        interval = wilson_interval(mean, n, confidence)
    else:
        interval = t_interval(mean, se, n, confidence)
    between, within, mean_k = _variance_split(epochs) if n else (0.0, math.nan, 0.0)
    total = between + (0.0 if math.isnan(within) else within)
    icc = between / total if total > 0 else 0.0
    return Estimate(
        estimate=mean,
        se=se,
        interval=interval,
        n=n,
        k=epochs.k,
        reducer=reducer.name,
        between_variance=between,
        within_variance=within,
        design_effect=1.0 + (mean_k - 1.0) * icc,
        advice=_advice(between, within, n, mean_k),
    )
