"""The gate that knows noise (``--stat``): non-inferiority with a margin.

The plain gate (``evals.core.gate``) is decided first; the statistical gate
keeps its structural failures (invalid artifacts, a benchmark missing from
the candidate) and replaces its point-estimate judgement of each benchmark
by paired comparisons (``evals.core.stats_paired``):

- ``passRate`` from the runs' ``caseResults`` (``passed`` as 1/0), paired by
  scenario (case ids ``<scenario>#<epoch>`` carry repeats);
- ``score`` when every case result of both runs carries a ``score``;
- a run without ``caseResults``: ``passRate`` from the summary's counts,
  unpaired (Newcombe's interval; ``compare_proportions``);
- the summary's other metrics hold only a mean per run, no spread: they are
  listed as not judged (the stat gate needs per-case values to judge them).

Each comparison's margin is ``--margin`` when given, else the metric's
registered threshold (``evals.core.metric_registry.threshold``; 0 for the
pass rate: the plain gate's tolerance). All comparisons of one gate share
one Holm adjustment. The gate fails on a structural failure or a
``regression``, that is only when the interval shows a drop beyond the
margin; ``inconclusive`` passes, and a comparison whose minimum detectable
effect exceeds the margin is warned about as ``underpowered``.

Pure: no I/O; same inputs, same verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evals.core.case_columns import CaseColumns, case_columns_of
from evals.core.formats_types import RunSummary
from evals.core.gate import BaselineSource, GateVerdict, SnapshotRef, invalid_messages
from evals.core.metric_registry import MetricDirection, direction, threshold
from evals.core.stats import Estimate, epochs_of, estimate, group_cases
from evals.core.stats_input import MEAN, Reducer
from evals.core.stats_paired import (
    Flip,
    PairedComparison,
    Verdict,
    adjust_all,
    compare,
    compare_proportions,
    flips,
    require_same_benchmark,
)
from evals.core.store import InvalidCounts, StoreContents

PASS_RATE = "passRate"  # noqa: S105 - a metric name
SCORE = "score"


@dataclass(frozen=True, slots=True)
class BenchmarkComparison:
    benchmark_id: str
    base_run_id: str
    candidate_run_id: str
    paired: bool  # False: the pass rate from summary counts, unpaired
    comparisons: tuple[PairedComparison, ...]
    not_judged: tuple[str, ...]  # summary metrics without per-case values
    flips: tuple[Flip, ...]


@dataclass(frozen=True, slots=True)
class StatGateVerdict:
    passed: bool
    base_root: str
    candidate_root: str
    snapshot: SnapshotRef | None
    margin: float | None  # None: each metric's registered threshold
    reducer: str
    structural: tuple[str, ...]  # invalid artifacts, missing benchmarks
    benchmarks: tuple[BenchmarkComparison, ...]
    invalid_base: InvalidCounts | None
    invalid_candidate: InvalidCounts
    missing_candidate_benchmarks: tuple[str, ...]

    def _named(self) -> list[tuple[str, PairedComparison]]:
        return [(b.benchmark_id, c) for b in self.benchmarks for c in b.comparisons]

    @property
    def comparison_count(self) -> int:
        return len(self._named())

    def with_verdict(self, verdict: Verdict) -> list[tuple[str, PairedComparison]]:
        return [(bid, c) for bid, c in self._named() if c.verdict is verdict]

    @property
    def underpowered(self) -> list[tuple[str, PairedComparison]]:
        return [(bid, c) for bid, c in self._named() if c.underpowered]


def run_estimates(run: RunSummary, reducer: Reducer = MEAN) -> dict[str, Estimate]:
    """A stored run's figures with their uncertainty (``evals.core.stats``):
    ``passRate`` from its case results, ``score`` when every case has one;
    without case results the pass rate of its counts, each case one
    scenario (Wilson or t as for any proportion)."""
    if run.case_results is None:
        outcomes = [1.0] * run.passed_cases + [0.0] * run.failed_cases
        ids = [f"case-{index}" for index in range(len(outcomes))]
        return {PASS_RATE: estimate(epochs_of(ids, outcomes), reducer)}
    groups = group_cases([case.case_id for case in run.case_results])
    found = {
        PASS_RATE: estimate(
            groups.epochs([float(c.passed) for c in run.case_results]), reducer
        )
    }
    scores = [c.score for c in run.case_results]
    if scores and all(score is not None for score in scores):
        values = [float(score) for score in scores if score is not None]
        found[SCORE] = estimate(groups.epochs(values), reducer)
    return found


# A stored run and its case results as columns when the reader kept them so.
_Indexed = tuple[RunSummary, CaseColumns | None]


def _run_index(*stores: StoreContents) -> dict[tuple[str, str], _Indexed]:
    index: dict[tuple[str, str], _Indexed] = {}
    for store in reversed(stores):
        for stored in store.runs:
            run = stored.item
            index[(run.benchmark_id, run.run_id)] = (run, stored.columns)
    return index


def _columns(indexed: _Indexed | None) -> CaseColumns | None:
    """A run's case results as columns (read so, or from the built ones);
    ``None`` for a run without case results."""
    if indexed is None:
        return None
    run, columns = indexed
    if columns is None and run.case_results is not None:
        return case_columns_of(run.case_results)
    return columns


def _benchmark(
    benchmark_id: str,
    base_indexed: _Indexed | None,
    candidate_indexed: _Indexed,
    *,
    margin: float | None,
    reducer: Reducer,
    overrides: Mapping[str, MetricDirection] | None,
) -> BenchmarkComparison:
    def margin_of(name: str) -> float:
        return threshold(name) if margin is None else margin

    def higher(name: str) -> bool:
        return (
            direction(name, overrides=overrides) is not MetricDirection.LOWER_IS_BETTER
        )

    base = base_indexed[0] if base_indexed is not None else None
    candidate = candidate_indexed[0]
    cases_a, cases_b = _columns(base_indexed), _columns(candidate_indexed)
    if base is not None:
        require_same_benchmark(base.benchmark_id, candidate.benchmark_id)
    base_id = base.run_id if base is not None else ""
    summary_metrics = sorted(
        ((base.metrics or {}) if base is not None else {}).keys()
        & (candidate.metrics or {}).keys()
    )
    if base is None or cases_a is None or cases_b is None:
        counts_a = (base.passed_cases, base.total_cases) if base is not None else (0, 0)
        rate = compare_proportions(
            counts_a,
            (candidate.passed_cases, candidate.total_cases),
            margin=margin_of(PASS_RATE),
        )
        return BenchmarkComparison(
            benchmark_id, base_id, candidate.run_id, False, (rate,),
            tuple(summary_metrics), (),
        )  # fmt: skip
    groups_a, groups_b = group_cases(cases_a.case_ids), group_cases(cases_b.case_ids)
    passed_a = groups_a.epochs([float(passed) for passed in cases_a.passed])
    passed_b = groups_b.epochs([float(passed) for passed in cases_b.passed])
    comparisons = [
        compare(
            passed_a,
            passed_b,
            metric=PASS_RATE,
            higher_is_better=higher(PASS_RATE),
            margin=margin_of(PASS_RATE),
            reducer=reducer,
        )
    ]
    scores_a, scores_b = cases_a.scores, cases_b.scores
    if None not in scores_a and None not in scores_b and scores_a and scores_b:
        comparisons.append(
            compare(
                groups_a.epochs([float(s) for s in scores_a if s is not None]),
                groups_b.epochs([float(s) for s in scores_b if s is not None]),
                metric=SCORE,
                higher_is_better=higher(SCORE),
                margin=margin_of(SCORE),
                reducer=reducer,
            )
        )
    return BenchmarkComparison(
        benchmark_id,
        base_id,
        candidate.run_id,
        True,
        tuple(comparisons),
        tuple(summary_metrics),
        tuple(flips(passed_a, passed_b)),
    )


def evaluate_stat_gate(
    plain: GateVerdict,
    *,
    base: StoreContents,
    candidate: StoreContents,
    margin: float | None = None,
    reducer: Reducer = MEAN,
    overrides: Mapping[str, MetricDirection] | None = None,
) -> StatGateVerdict:
    """The statistical gate over the runs ``plain`` compared (module docstring).

    ``StatInputError`` (naming the field) for a negative margin, a reducer
    the runs cannot use, or more repeats than allowed."""
    snapshot = plain.snapshot
    from_candidate = (
        snapshot is not None and snapshot.resolved_from is BaselineSource.CANDIDATE
    )
    base_runs = _run_index(candidate, base) if from_candidate else _run_index(base)
    candidate_runs = _run_index(candidate)
    benchmarks: list[BenchmarkComparison] = []
    for delta in plain.deltas:
        benchmarks.append(
            _benchmark(
                delta.benchmark_id,
                base_runs.get((delta.benchmark_id, delta.base_run_id)),
                candidate_runs[(delta.benchmark_id, delta.candidate_run_id)],
                margin=margin,
                reducer=reducer,
                overrides=overrides,
            )
        )
    return stat_verdict(
        plain, benchmarks, snapshot=snapshot, margin=margin, reducer_name=reducer.name
    )


def stat_verdict(
    plain: GateVerdict,
    benchmarks: list[BenchmarkComparison],
    *,
    snapshot: SnapshotRef | None,
    margin: float | None,
    reducer_name: str,
) -> StatGateVerdict:
    """The statistical gate's verdict from each benchmark's comparisons
    (adjusted for multiple comparisons across all of them) and the plain
    gate's structural findings; shared by ``evaluate_stat_gate`` and the
    compare page's counts-only path (``evals.core.compare_sums``)."""
    adjusted = iter(adjust_all([c for b in benchmarks for c in b.comparisons]))
    benchmarks = [
        BenchmarkComparison(
            b.benchmark_id,
            b.base_run_id,
            b.candidate_run_id,
            b.paired,
            tuple(next(adjusted) for _ in b.comparisons),
            b.not_judged,
            b.flips,
        )  # fmt: skip
        for b in benchmarks
    ]
    structural = (
        invalid_messages("base", plain.invalid_base) if plain.invalid_base else []
    )
    structural += invalid_messages("candidate", plain.invalid_candidate)
    structural += [
        f"candidate is missing latest completed benchmark run for {benchmark_id}"
        for benchmark_id in plain.missing_candidate_benchmarks
    ]
    regressed = any(
        c.verdict is Verdict.REGRESSION for b in benchmarks for c in b.comparisons
    )
    return StatGateVerdict(
        passed=not structural and not regressed,
        base_root=plain.base_root,
        candidate_root=plain.candidate_root,
        snapshot=snapshot,
        margin=margin,
        reducer=reducer_name,
        structural=tuple(structural),
        benchmarks=tuple(benchmarks),
        invalid_base=plain.invalid_base,
        invalid_candidate=plain.invalid_candidate,
        missing_candidate_benchmarks=plain.missing_candidate_benchmarks,
    )
