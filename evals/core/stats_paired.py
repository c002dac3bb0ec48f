"""Two runs compared on the scenarios they share: paired differences, exact
McNemar, the minimum detectable effect, one verdict per metric, Holm.

For each shared scenario i, ``d_i = b_i - a_i`` (candidate minus base, each
the scenario's reduced value, ``evals.core.stats``). The delta is the mean of
the ``d_i``, its standard error ``sd(d) / sqrt(n)``, its 95% interval the t
interval with n - 1 degrees of freedom. For pass/fail at K = 1 the exact
McNemar test is reported too: ``b`` scenarios passed in A only, ``c`` in B
only, p the two-sided exact binomial test of ``min(b, c)`` of ``b + c`` at
1/2 (1 when ``b + c = 0``). The minimum detectable effect at 80% power and a
two-sided 5% level is ``(t_{0.975, n-1} + t_{0.80, n-1}) * se``.

A verdict looks at the move in the metric's good direction, ``g = s * d``
(``s`` +1 when higher is better, -1 when lower is better), with a margin
``m >= 0`` (a move of at most m either way is no move):

- the p-value says how surely g lies beyond the margin on the side the mean
  is on: ``2 * min(P(T <= (g+m)/se), P(T >= (g-m)/se))`` with T Student's t
  (n - 1 df), capped at 1; for pass/fail at K = 1 with m = 0 it is the
  McNemar p. Several metrics compared at once share one Holm adjustment;
- ``regression``: adjusted p < 0.05 and ``mean g < -m``;
  ``improvement``: adjusted p < 0.05 and ``mean g > m``;
- ``no change``: otherwise, when the whole interval of g lies within
  ``[-m, m]`` (with m = 0: every pair equal);
- ``inconclusive``: otherwise. The interval is too wide to tell: add
  scenarios or repeats until the MDE is below the margin.

Alone (no adjustment) ``regression`` is exactly "the interval of g lies
below -m". Scenarios in one run only are listed, never dropped. Flips: at
K = 1, pass -> fail and fail -> pass; with K > 1 the chance that a random
epoch of A passes and one of B fails, ``p_a (1 - p_b)`` (and the reverse).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import ModuleType

import numpy as np

from evals.core.stats import (
    CONFIDENCE,
    Epochs,
    FloatArray,
    Interval,
    reduce_epochs,
    t_interval,
    wilson_interval,
)
from evals.core.stats_dist import norm_cdf, norm_ppf, norm_sf, t_cdf, t_ppf, t_sf
from evals.core.stats_input import MEAN, Reducer, StatInputError


def _sps() -> ModuleType:
    """scipy.stats, imported on first use: it costs about half a second, which
    every process that loads the app registry (each manage.py command, the
    plain gate) would otherwise pay without computing an interval. Only the
    exact McNemar test needs it; t and normal come from
    ``evals.core.stats_dist``."""
    return importlib.import_module("scipy.stats")


ALPHA = 1 - CONFIDENCE
POWER = 0.80


class Verdict(StrEnum):
    REGRESSION = "regression"
    IMPROVEMENT = "improvement"
    NO_CHANGE = "no change"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class McNemar:
    b: int  # passed in A, failed in B
    c: int  # failed in A, passed in B
    p_value: float


@dataclass(frozen=True, slots=True)
class Flip:
    scenario: str
    to_fail: float  # K = 1: 0 or 1; else p_a * (1 - p_b)
    to_pass: float


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """One metric of two runs on their shared scenarios (module docstring)."""

    metric: str
    higher_is_better: bool
    margin: float
    n: int
    k: int
    base_mean: float
    candidate_mean: float
    delta: float
    se: float
    interval: Interval
    mde: float
    p_value: float
    p_adjusted: float
    verdict: Verdict
    mcnemar: McNemar | None
    only_base: tuple[str, ...]
    only_candidate: tuple[str, ...]

    @property
    def underpowered(self) -> bool:
        """The smallest move this comparison can see exceeds the margin,
        and it saw none: a regression or improvement it did find needs no
        warning."""
        decided = self.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT)
        return not decided and not self.mde <= self.margin


def require_same_benchmark(base_id: str, candidate_id: str) -> None:
    """Two runs are compared only within one benchmark (suite or pack):
    ``StatInputError`` naming ``benchmarkId`` otherwise."""
    if base_id != candidate_id:
        raise StatInputError(
            "benchmarkId",
            f"runs of different benchmarks cannot be paired: {base_id!r} and "
            f"{candidate_id!r}",
        )


def mcnemar_exact(b: int, c: int) -> McNemar:
    """Exact McNemar: two-sided binomial test of b against b + c at 1/2."""
    if b + c == 0:
        return McNemar(b, c, 1.0)
    return McNemar(b, c, float(_sps().binomtest(b, b + c, 0.5).pvalue))


def minimum_detectable_effect(se: float, n: int, power: float = POWER) -> float:
    """``(t_{1-alpha/2, n-1} + t_{power, n-1}) * se``; inf below 2 pairs."""
    if n < 2 or math.isnan(se):
        return math.inf
    quantiles = t_ppf(1 - ALPHA / 2, n - 1) + t_ppf(power, n - 1)
    return quantiles * se


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _margin_p(good: float, se: float, n: int, margin: float) -> float:
    if n < 2 or math.isnan(se):
        return 1.0
    if se == 0:
        return 0.0 if abs(good) > margin else 1.0
    below = t_cdf((good + margin) / se, n - 1)
    above = t_sf((good - margin) / se, n - 1)
    return min(1.0, 2 * min(below, above))


def decide(comparison: PairedComparison, p_adjusted: float) -> PairedComparison:
    """The verdict of a comparison whose p-value was adjusted to ``p_adjusted``."""
    sign = 1.0 if comparison.higher_is_better else -1.0
    good = sign * comparison.delta
    margin = comparison.margin
    low, high = sorted(
        (sign * comparison.interval.low, sign * comparison.interval.high)
    )
    if p_adjusted < ALPHA and good < -margin:
        verdict = Verdict.REGRESSION
    elif p_adjusted < ALPHA and good > margin:
        verdict = Verdict.IMPROVEMENT
    elif low >= -margin and high <= margin:
        verdict = Verdict.NO_CHANGE
    else:
        verdict = Verdict.INCONCLUSIVE
    return replace(comparison, p_adjusted=p_adjusted, verdict=verdict)


def adjust_all(comparisons: Sequence[PairedComparison]) -> list[PairedComparison]:
    """Holm across ``comparisons`` (one family), then each verdict."""
    adjusted = holm([c.p_value for c in comparisons])
    return [decide(c, p) for c, p in zip(comparisons, adjusted, strict=True)]


def _shared(
    base: Epochs, candidate: Epochs
) -> tuple[FloatArray, FloatArray, list[str]]:
    """Row indexes of the shared scenarios in each (both sorted by name)."""
    common = sorted(set(base.scenarios) & set(candidate.scenarios))
    rows_a = {name: i for i, name in enumerate(base.scenarios)}
    rows_b = {name: i for i, name in enumerate(candidate.scenarios)}
    return (
        np.fromiter((rows_a[s] for s in common), dtype=np.int64, count=len(common)),
        np.fromiter((rows_b[s] for s in common), dtype=np.int64, count=len(common)),
        common,
    )


def _is_pass_fail(epochs: Epochs) -> bool:
    present = epochs.values[~np.isnan(epochs.values)]
    return bool(np.isin(present, (0.0, 1.0)).all())


def compare(
    base: Epochs,
    candidate: Epochs,
    *,
    metric: str,
    higher_is_better: bool = True,
    margin: float = 0.0,
    reducer: Reducer = MEAN,
) -> PairedComparison:
    """One metric of two runs, paired on the scenarios they share; the
    verdict unadjusted (``adjust_all`` for several metrics).

    ``StatInputError`` naming ``margin`` when it is negative or not finite."""
    if not math.isfinite(margin) or margin < 0:
        raise StatInputError("margin", f"must be a finite number >= 0, got {margin}")
    rows_a, rows_b, common = _shared(base, candidate)
    shared = set(common)
    a = reduce_epochs(base, reducer)[rows_a]
    b = reduce_epochs(candidate, reducer)[rows_b]
    n = len(common)
    diffs = b - a
    delta = float(diffs.mean()) if n else math.nan
    se = float(np.std(diffs, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    k = max(base.k, candidate.k)
    mcnemar: McNemar | None = None
    sign = 1.0 if higher_is_better else -1.0
    p_value = _margin_p(sign * delta, se, n, margin) if n else 1.0
    if k == 1 and n and _is_pass_fail(base) and _is_pass_fail(candidate):
        mcnemar = mcnemar_exact(
            int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        )
        if margin == 0:
            p_value = mcnemar.p_value
    comparison = PairedComparison(
        metric=metric,
        higher_is_better=higher_is_better,
        margin=margin,
        n=n,
        k=k,
        base_mean=float(a.mean()) if n else math.nan,
        candidate_mean=float(b.mean()) if n else math.nan,
        delta=delta,
        se=se,
        interval=t_interval(delta, se, n),
        mde=minimum_detectable_effect(se, n),
        p_value=p_value,
        p_adjusted=p_value,
        verdict=Verdict.INCONCLUSIVE,
        mcnemar=mcnemar,
        only_base=tuple(s for s in base.scenarios if s not in shared),
        only_candidate=tuple(s for s in candidate.scenarios if s not in shared),
    )
    return decide(comparison, p_value)


def flips(base: Epochs, candidate: Epochs) -> list[Flip]:
    """Per shared scenario, the chance of pass -> fail and fail -> pass
    (module docstring); the scenarios that can flip, worst (most likely to
    fail) first, then by name."""
    rows_a, rows_b, common = _shared(base, candidate)
    pass_a = np.clip(reduce_epochs(base, MEAN)[rows_a], 0.0, 1.0)
    pass_b = np.clip(reduce_epochs(candidate, MEAN)[rows_b], 0.0, 1.0)
    to_fail = pass_a * (1 - pass_b)
    to_pass = (1 - pass_a) * pass_b
    moving = np.flatnonzero((to_fail > 0) | (to_pass > 0))
    # ``common`` is sorted by name: the position breaks ties by name.
    order = moving[np.lexsort((moving, -to_pass[moving], -to_fail[moving]))]
    return [
        Flip(common[i], float(fail), float(gain))
        for i, fail, gain in zip(
            order.tolist(),
            to_fail[order].tolist(),
            to_pass[order].tolist(),
            strict=True,
        )
    ]


def _wilson_bounds(passed: int, total: int) -> tuple[float, float]:
    found = wilson_interval(passed / total, total)
    return found.low, found.high


def compare_proportions(
    base: tuple[int, int],
    candidate: tuple[int, int],
    *,
    metric: str = "passRate",
    margin: float = 0.0,
) -> PairedComparison:
    """Two pass rates known only as ``(passed, total)`` counts, unpaired:
    Newcombe's hybrid score interval of the difference (from the two Wilson
    intervals), the normal standard error and MDE, the margin p-value from
    the normal distribution. For runs without per-case results."""
    if not math.isfinite(margin) or margin < 0:
        raise StatInputError("margin", f"must be a finite number >= 0, got {margin}")
    (pass_a, n_a), (pass_b, n_b) = base, candidate
    if n_a < 1 or n_b < 1:
        rate_a = pass_a / n_a if n_a else math.nan
        rate_b = pass_b / n_b if n_b else math.nan
        none = Interval(math.nan, math.nan, "none")
        comparison = PairedComparison(
            metric, True, margin, 0, 1, rate_a, rate_b, rate_b - rate_a, math.nan,
            none, math.inf, 1.0, 1.0, Verdict.INCONCLUSIVE, None, (), (),
        )  # fmt: skip
        return decide(comparison, 1.0)
    p_a, p_b = pass_a / n_a, pass_b / n_b
    low_a, high_a = _wilson_bounds(pass_a, n_a)
    low_b, high_b = _wilson_bounds(pass_b, n_b)
    delta = p_b - p_a
    interval = Interval(
        delta - math.sqrt((p_b - low_b) ** 2 + (high_a - p_a) ** 2),
        delta + math.sqrt((high_b - p_b) ** 2 + (p_a - low_a) ** 2),
        "newcombe",
    )
    se = math.sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
    z = norm_ppf(1 - ALPHA / 2) + norm_ppf(POWER)
    if se == 0:
        p_value = 0.0 if abs(delta) > margin else 1.0
    else:
        below = norm_cdf((delta + margin) / se)
        above = norm_sf((delta - margin) / se)
        p_value = min(1.0, 2 * min(below, above))
    comparison = PairedComparison(
        metric=metric,
        higher_is_better=True,
        margin=margin,
        n=min(n_a, n_b),
        k=1,
        base_mean=p_a,
        candidate_mean=p_b,
        delta=delta,
        se=se,
        interval=interval,
        mde=z * se,
        p_value=p_value,
        p_adjusted=p_value,
        verdict=Verdict.INCONCLUSIVE,
        mcnemar=None,
        only_base=(),
        only_candidate=(),
    )
    return decide(comparison, p_value)
