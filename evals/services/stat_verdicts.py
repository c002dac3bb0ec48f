"""Paired pass-rate verdicts for the trends page (each run against the one
before it) and the overview (each benchmark's latest completed run against
its baseline's run): the same verdict the compare page gives the same two
runs (``evals.core.compare_stats.pass_rate_comparison``). Reads only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evals.core.compare_stats import (
    Outcomes,
    VerdictText,
    pass_rate_comparison,
    shown_rate_interval,
    verdict_text,
)
from evals.core.stats import Estimate, group_cases
from evals.core.stats import estimate as estimate_of
from evals.core.stats_input import StatInputError
from evals.models import Run
from evals.selectors.baselines import baselines_by_benchmark
from evals.selectors.outcomes import run_outcomes
from evals.selectors.runs import latest_completed_runs, runs_by_id

# Runs of a trend whose intervals and step verdicts are worked out (the
# newest ones): each needs its case outcomes read.
TREND_STAT_RUNS = 60


def _estimate(outcomes: Outcomes) -> Estimate | None:
    if not outcomes.case_ids:
        return None
    groups = group_cases(outcomes.case_ids)
    return estimate_of(groups.epochs([float(p) for p in outcomes.passed]))


@dataclass(frozen=True, slots=True)
class TrendStats:
    """Per run id: its pass rate's 95% interval and its verdict against the
    run before it on the trend."""

    intervals: dict[str, tuple[float, float]]
    estimates: dict[str, Estimate]
    steps: dict[str, VerdictText]
    covered: int  # how many of the newest runs these cover


def trend_stats(runs: Sequence[tuple[int, str, int, int]]) -> TrendStats:
    """``runs``: ``(pk, run id, passed, total)`` oldest first; the newest
    ``TREND_STAT_RUNS`` of them (and the one before, for the first step)
    are read. A run whose case ids cannot be grouped gets no figures."""
    shown = list(runs[-(TREND_STAT_RUNS + 1) :])
    outcomes = run_outcomes(pk for pk, _, _, _ in shown)
    intervals: dict[str, tuple[float, float]] = {}
    estimates: dict[str, Estimate] = {}
    steps: dict[str, VerdictText] = {}
    for index, (pk, run_id, passed, total) in enumerate(shown):
        try:
            found = _estimate(outcomes[pk])
            if found is not None:
                estimates[run_id] = found
                intervals[run_id] = shown_rate_interval(
                    found.interval.low, found.interval.high
                )
            if index == 0:
                continue
            before_pk, _, before_passed, before_total = shown[index - 1]
            comparison = pass_rate_comparison(
                outcomes[before_pk],
                outcomes[pk],
                base_counts=(before_passed, before_total),
                candidate_counts=(passed, total),
            )
        except StatInputError:
            continue
        steps[run_id] = verdict_text("", comparison, paired=bool(outcomes[pk].case_ids))
    return TrendStats(intervals, estimates, steps, min(len(runs), TREND_STAT_RUNS))


@dataclass(frozen=True, slots=True)
class BaselineVerdict:
    """A benchmark's latest completed run against its baseline's run."""

    benchmark_id: str
    snapshot_id: str
    baseline_run_id: str
    candidate_run_id: str
    baseline_run_stored: bool
    text: VerdictText


def baseline_verdicts() -> list[BaselineVerdict]:
    """Each benchmark with a baseline and a completed run: the latest
    completed run against the baseline's run, paired when that run and its
    case results are stored here, else from the snapshot's counts. Four
    queries, whatever the number of benchmarks."""
    baselines = baselines_by_benchmark()
    latest = latest_completed_runs(baselines)
    stored = runs_by_id(found.entry.run_id for found in baselines.values())
    pks = [run.pk for run in (*latest.values(), *stored.values())]
    outcomes = run_outcomes(pks)
    found_verdicts: list[BaselineVerdict] = []
    for benchmark_id in sorted(baselines):
        candidate = latest.get(benchmark_id)
        if candidate is None:
            continue
        entry = baselines[benchmark_id].entry
        base: Run | None = stored.get(entry.run_id)
        if base is not None and base.benchmark.benchmark_id != benchmark_id:
            base = None
        if base is not None:
            base_counts = (base.passed_cases, base.total_cases)
        else:
            total = entry.total_cases or 0
            base_counts = (round(entry.pass_rate * total), total)
        base_outcomes = outcomes.get(base.pk) if base is not None else None
        try:
            comparison = pass_rate_comparison(
                base_outcomes,
                outcomes[candidate.pk],
                base_counts=base_counts,
                candidate_counts=(candidate.passed_cases, candidate.total_cases),
            )
        except StatInputError:
            continue
        paired = bool(base_outcomes and base_outcomes.case_ids)
        found_verdicts.append(
            BaselineVerdict(
                benchmark_id=benchmark_id,
                snapshot_id=baselines[benchmark_id].snapshot_id,
                baseline_run_id=entry.run_id,
                candidate_run_id=candidate.run_id,
                baseline_run_stored=base is not None,
                text=verdict_text(
                    benchmark_id,
                    comparison,
                    paired=paired and bool(outcomes[candidate.pk].case_ids),
                ),
            )
        )
    return found_verdicts
