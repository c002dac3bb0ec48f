"""Cost and latency of two runs, side by side: what a change costs and how
much slower or faster it made the agent, with intervals like every other
metric of a comparison.

Inputs are each run's model-call figures (``RunFigures``: totals, and per
case the cost, the latency, the tokens; ``None`` is unknown, never 0). For
each figure:

- **totals**: the runs' total cost and tokens, the change and the relative
  change ``(candidate - base) / base`` (none when the base is 0 or
  unknown). A run with an unpriced call has an unknown cost: the cost
  comparison says so and how many calls, and judges nothing;
- **mean per case, paired**: the cases with a known value in each run are
  grouped by scenario (``<scenario>#<epoch>`` ids: repeats are averaged per
  scenario, scenarios are the units) and compared on the scenarios both
  runs have, by ``evals.core.stats_paired.compare`` (lower is better,
  margin 0): delta, its 95% t interval, MDE and verdict. Fewer than 2
  shared scenarios: no interval (``note`` says why);
- **latency percentiles**: p50 and p95 over each run's cases (linear
  interpolation, numpy's default), and an interval for the change of the
  p95: a paired bootstrap over the shared scenarios (each resample draws
  scenarios with replacement and keeps all their epochs on both sides;
  ``BOOTSTRAP_RESAMPLES`` draws from ``numpy.random.default_rng(seed)``,
  the 2.5th and 97.5th percentiles), only with at least
  ``BOOTSTRAP_MIN_SCENARIOS`` shared scenarios: a p95 of fewer says little.
  Its work is bounded for a page: resamples x cases at most
  ``BOOTSTRAP_WORK`` (fewer resamples past 1,000 cases), and past the
  point where that leaves fewer than ``BOOTSTRAP_MIN_RESAMPLES`` (5,000
  cases) no interval, and the note says so.

Pure numpy; deterministic for a seed. docs/evals.md ("Cost and latency beside
behaviour") states the rules.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evals.core.stats import Epochs, epochs_of
from evals.core.stats_paired import PairedComparison, compare

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_MIN_RESAMPLES = 400
BOOTSTRAP_WORK = 2_000_000
BOOTSTRAP_MIN_SCENARIOS = 10
BOOTSTRAP_SEED = 0
MIN_PAIRED_SCENARIOS = 2


@dataclass(frozen=True, slots=True)
class CaseFigures:
    """One case's model calls (``None``: unknown)."""

    cost_usd: float | None = None
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class RunFigures:
    """One run's model calls: totals over every call (including calls
    linked to no case), and per case."""

    calls: int = 0
    unpriced_calls: int = 0
    cost_usd: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cases: Mapping[str, CaseFigures] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Total:
    """A total of both runs and its change."""

    base: float | None
    candidate: float | None

    @property
    def change(self) -> float | None:
        if self.base is None or self.candidate is None:
            return None
        return self.candidate - self.base

    @property
    def relative(self) -> float | None:
        return relative_change(self.base, self.candidate)


@dataclass(frozen=True, slots=True)
class PairedMean:
    """The mean per case of both runs, paired by scenario (module docstring)."""

    comparison: PairedComparison | None
    note: str = ""

    @property
    def has_interval(self) -> bool:
        c = self.comparison
        return c is not None and c.interval.method != "none"


@dataclass(frozen=True, slots=True)
class PercentileChange:
    """A latency percentile of both runs; the interval of its change when
    the bootstrap could give one (``note`` says why not)."""

    q: int
    value: Total
    low: float | None = None
    high: float | None = None
    scenarios: int = 0
    note: str = ""


@dataclass(frozen=True, slots=True)
class UsageDelta:
    """What two runs' model calls cost and how long they took."""

    base_calls: int
    candidate_calls: int
    base_unpriced: int
    candidate_unpriced: int
    cost: Total
    cost_note: str
    cost_per_case: PairedMean
    latency_per_case: PairedMean
    latency_p50: PercentileChange
    latency_p95: PercentileChange
    input_tokens: Total
    output_tokens: Total

    @property
    def has_calls(self) -> bool:
        return bool(self.base_calls or self.candidate_calls)

    @property
    def cost_known(self) -> bool:
        return self.cost.base is not None and self.cost.candidate is not None


def relative_change(base: float | None, candidate: float | None) -> float | None:
    """``(candidate - base) / base``; ``None`` when either is unknown or
    the base is 0."""
    if base is None or candidate is None or base == 0:
        return None
    return (candidate - base) / base


def unpriced_note(base: RunFigures, candidate: RunFigures) -> str:
    """Why the cost comparison is unknown (empty when it is known)."""
    if not (base.calls or candidate.calls):
        return "no model calls recorded"
    parts = [
        f"{side}: {_calls(run.unpriced_calls)} unpriced"
        for side, run in (("base", base), ("candidate", candidate))
        if run.unpriced_calls
    ]
    parts += [
        f"{side}: no model calls recorded"
        for side, run in (("base", base), ("candidate", candidate))
        if not run.calls
    ]
    return "cost unknown: " + "; ".join(parts) if parts else ""


def _calls(count: int) -> str:
    return f"{count} call" if count == 1 else f"{count} calls"


Known = tuple[list[str], list[float]]


def _known_cases(run: RunFigures, attribute: str) -> Known:
    ids: list[str] = []
    values: list[float] = []
    for case_id in sorted(run.cases):
        value = getattr(run.cases[case_id], attribute)
        if value is not None and math.isfinite(value):
            ids.append(case_id)
            values.append(float(value))
    return ids, values


def paired_mean(
    base: RunFigures,
    candidate: RunFigures,
    attribute: str,
    metric: str,
    *,
    known: tuple[Known, Known] | None = None,
) -> PairedMean:
    """The per-case ``attribute`` of both runs, paired by scenario
    (``evals.core.stats_paired.compare``, lower is better, margin 0)."""
    (base_ids, base_values), (candidate_ids, candidate_values) = known or (
        _known_cases(base, attribute),
        _known_cases(candidate, attribute),
    )
    if not base_ids or not candidate_ids:
        return PairedMean(None, "no case has this figure in both runs")
    comparison = compare(
        epochs_of(base_ids, base_values),
        epochs_of(candidate_ids, candidate_values),
        metric=metric,
        higher_is_better=False,
    )
    if comparison.n == 0:
        return PairedMean(None, "the runs share no scenario with this figure")
    if comparison.n < MIN_PAIRED_SCENARIOS:
        return PairedMean(
            comparison, "one shared scenario: no interval (at least 2 are needed)"
        )
    return PairedMean(comparison)


def _percentile(values: list[float], q: int) -> float | None:
    return float(np.percentile(values, q)) if values else None


def _scenario_rows(
    epochs: Epochs, wanted: list[str]
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Rows: the ``wanted`` scenarios; columns: their epochs (NaN-padded)."""
    rows = {name: i for i, name in enumerate(epochs.scenarios)}
    return np.asarray(epochs.values[[rows[name] for name in wanted]])


def bootstrap_percentile_change(
    base: np.ndarray[Any, np.dtype[np.float64]],
    candidate: np.ndarray[Any, np.dtype[np.float64]],
    q: int,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The 95% percentile-bootstrap interval of ``p_q(candidate) - p_q(base)``
    over paired scenarios: ``base[i]`` and ``candidate[i]`` are scenario
    i's epochs (NaN-padded). Each resample draws n scenario indices with
    replacement (one draw for both sides: the pairing is kept)."""
    n = base.shape[0]
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    sides = []
    for matrix in (base, candidate):
        picked = matrix[draws].reshape(resamples, -1)
        if np.isnan(picked).any():
            sides.append(np.nanpercentile(picked, q, axis=1))
        else:
            sides.append(np.percentile(picked, q, axis=1))
    changes = sides[1] - sides[0]
    low, high = np.percentile(changes, [2.5, 97.5])
    return float(low), float(high)


def percentile_change(
    base: RunFigures,
    candidate: RunFigures,
    q: int,
    *,
    interval: bool = True,
    seed: int = BOOTSTRAP_SEED,
    known: tuple[Known, Known] | None = None,
) -> PercentileChange:
    """Latency percentile ``q`` of both runs' cases and, when ``interval``
    and the shared scenarios allow, the bootstrap interval of its change
    (module docstring)."""
    (base_ids, base_values), (candidate_ids, candidate_values) = known or (
        _known_cases(base, "latency_ms"),
        _known_cases(candidate, "latency_ms"),
    )
    value = Total(_percentile(base_values, q), _percentile(candidate_values, q))
    if not interval:
        return PercentileChange(q, value)
    if not base_ids or not candidate_ids:
        return PercentileChange(q, value, note="no case latency in both runs")
    base_epochs = epochs_of(base_ids, base_values)
    candidate_epochs = epochs_of(candidate_ids, candidate_values)
    shared = sorted(set(base_epochs.scenarios) & set(candidate_epochs.scenarios))
    if len(shared) < BOOTSTRAP_MIN_SCENARIOS:
        return PercentileChange(
            q,
            value,
            scenarios=len(shared),
            note=f"{len(shared)} shared scenarios: no interval for the "
            f"p{q} (at least {BOOTSTRAP_MIN_SCENARIOS} are needed)",
        )
    sides = (
        _scenario_rows(base_epochs, shared),
        _scenario_rows(candidate_epochs, shared),
    )
    resamples = min(
        BOOTSTRAP_RESAMPLES, BOOTSTRAP_WORK // max(side.size for side in sides)
    )
    if resamples < BOOTSTRAP_MIN_RESAMPLES:
        return PercentileChange(
            q,
            value,
            scenarios=len(shared),
            note=f"{max(side.size for side in sides):,} cases: too many to "
            f"resample on a page, no interval for the p{q}",
        )
    low, high = bootstrap_percentile_change(*sides, q, resamples=resamples, seed=seed)
    return PercentileChange(q, value, low, high, len(shared))


def _int_total(base: RunFigures, candidate: RunFigures, attribute: str) -> Total:
    def known(run: RunFigures) -> float | None:
        value = getattr(run, attribute)
        return None if value is None or not run.calls else float(value)

    return Total(known(base), known(candidate))


def usage_delta(base: RunFigures, candidate: RunFigures) -> UsageDelta:
    """Everything a comparison shows of two runs' model calls."""
    note = unpriced_note(base, candidate)
    latency = (_known_cases(base, "latency_ms"), _known_cases(candidate, "latency_ms"))
    return UsageDelta(
        base_calls=base.calls,
        candidate_calls=candidate.calls,
        base_unpriced=base.unpriced_calls,
        candidate_unpriced=candidate.unpriced_calls,
        # A run's own cost stays shown when only the other's is unknown.
        cost=Total(
            base.cost_usd if base.calls and not base.unpriced_calls else None,
            candidate.cost_usd
            if candidate.calls and not candidate.unpriced_calls
            else None,
        ),
        cost_note=note,
        cost_per_case=paired_mean(base, candidate, "cost_usd", "costPerCase")
        if not note
        else PairedMean(None, note),
        latency_per_case=paired_mean(
            base, candidate, "latency_ms", "latencyPerCase", known=latency
        ),
        latency_p50=percentile_change(
            base, candidate, 50, interval=False, known=latency
        ),
        latency_p95=percentile_change(base, candidate, 95, known=latency),
        input_tokens=_int_total(base, candidate, "input_tokens"),
        output_tokens=_int_total(base, candidate, "output_tokens"),
    )


# --- the JSON of a comparison ---------------------------------------------------


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _total_json(total: Total) -> dict[str, Any]:
    return {
        "base": _number(total.base),
        "candidate": _number(total.candidate),
        "change": _number(total.change),
        "relativeChange": _number(total.relative),
    }


def _mean_json(mean: PairedMean) -> dict[str, Any]:
    c = mean.comparison
    if c is None:
        return {"note": mean.note}
    return {
        "scenarios": c.n,
        "repeats": c.k,
        "base": _number(c.base_mean),
        "candidate": _number(c.candidate_mean),
        "change": _number(c.delta),
        "relativeChange": _number(relative_change(c.base_mean, c.candidate_mean)),
        "interval": [_number(c.interval.low), _number(c.interval.high)]
        if mean.has_interval
        else None,
        "mde": _number(c.mde),
        "verdict": c.verdict.value,
        "note": mean.note or None,
    }


def _percentile_json(change: PercentileChange) -> dict[str, Any]:
    return {
        **_total_json(change.value),
        "interval": [change.low, change.high] if change.low is not None else None,
        "scenarios": change.scenarios,
        "note": change.note or None,
    }


def usage_delta_to_json(delta: UsageDelta) -> dict[str, Any]:
    """The camelCase document of ``delta`` (key order fixed)."""
    return {
        "calls": {"base": delta.base_calls, "candidate": delta.candidate_calls},
        "unpricedCalls": {
            "base": delta.base_unpriced,
            "candidate": delta.candidate_unpriced,
        },
        "costUsd": {**_total_json(delta.cost), "note": delta.cost_note or None},
        "costPerCaseUsd": _mean_json(delta.cost_per_case),
        "latencyPerCaseMs": _mean_json(delta.latency_per_case),
        "latencyP50Ms": _percentile_json(delta.latency_p50),
        "latencyP95Ms": _percentile_json(delta.latency_p95),
        "inputTokens": _total_json(delta.input_tokens),
        "outputTokens": _total_json(delta.output_tokens),
    }
