"""Comparisons for the dashboard: run vs run, and what a snapshot's
comparison shares with it (the snapshot vs the latest runs:
``evals.services.compare_snapshots``; the per-case drill-down:
``evals.services.compare_case``; the overview's standings:
``evals.services.standings``).

The verdict on every page is the CI gate's own: runs and snapshots are read
from the database, turned into the core's input types (``RunSummary``,
``BaselineSnapshot``, in-memory ``StoreContents``) and judged by
``evals.core.gate.evaluate_gate``, so the regression and improvement lines
read exactly as ``python -m evals.gate`` prints them, and metric directions
come from the one metric registry.

Reads only; nothing here writes or logs. Query counts do not depend on the
number of cases (see ``evals.selectors``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from core.errors import CoreError
from evals.core.compare import (
    ONLY_BASE,
    ONLY_CANDIDATE,
    PASS_RATE,
    CaseChange,
    CaseDiff,
    CaseFilter,
    CaseRow,
    MetricRow,
    metric_rows,
    numeric_metrics,
)
from evals.core.compare_sums import (
    epochs_from_counts,
    split_as_python,
    stat_gate_from_counts,
)
from evals.core.formats_types import (
    BaselineSnapshot,
    RunStatus,
    RunSummary,
)
from evals.core.formats_types import CaseResult as CoreCaseResult
from evals.core.gate import (
    GateVerdict,
    evaluate_gate,
)
from evals.core.gate_stat import StatGateVerdict, evaluate_stat_gate
from evals.core.metric_registry import MetricDirection
from evals.core.provenance import version_notes
from evals.core.run_configs import (
    ConfigDifference,
    configuration_differences,
    configuration_warning,
    same_run_warning,
)
from evals.core.stats import Epochs
from evals.core.stats_input import StatInputError
from evals.core.store import StoreContents, StoredItem, StoreKind
from evals.models import Run
from evals.selectors.compare_cases import (
    OptionValues,
    RunPair,
    case_diffs_iter,
    change_counts,
    flipped_cases,
    option_values,
)
from evals.selectors.compare_scenarios import scenario_counts
from evals.selectors.runs import (
    case_fingerprints,
    case_rows,
    run_get,
    runs_by_id,
)
from evals.services.compare_kept import kept_or_built, run_key

# A queued run is, for the gate's format, a run that has not finished.
_STATUS = {
    Run.Status.QUEUED: RunStatus.RUNNING,
    Run.Status.RUNNING: RunStatus.RUNNING,
    Run.Status.COMPLETED: RunStatus.COMPLETED,
    Run.Status.FAILED: RunStatus.FAILED,
    Run.Status.PARTIAL: RunStatus.PARTIAL,
}


class ComparisonRefused(CoreError):
    """Two runs that cannot be gated against each other."""

    code = "comparison_refused"


def stat_of(
    verdict: GateVerdict, *, base: StoreContents, candidate: StoreContents
) -> tuple[StatGateVerdict | None, str]:
    """The statistical gate's verdict over the stores the plain gate judged,
    with its defaults (each metric's registered margin, the mean reducer):
    the verdict ``benchmark_ci_gate --stat`` gives on the same runs."""
    try:
        return evaluate_stat_gate(verdict, base=base, candidate=candidate), ""
    except StatInputError as error:
        return None, f"No paired comparison: {error.message}"


@dataclass(frozen=True, slots=True)
class BenchmarkSection:
    """One benchmark of a comparison: which runs, and their metrics."""

    benchmark_id: str
    base_run_id: str | None
    candidate_run_id: str | None
    base_run: Run | None
    candidate_run: Run | None
    metrics: tuple[MetricRow, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """Everything a compare page, its JSON and its CSV show."""

    mode: str  # "runs" | "snapshot"
    verdict: GateVerdict
    sections: tuple[BenchmarkSection, ...]
    # The runs whose cases are compared, and how many changed each way: the
    # cases themselves stay in the database (``evals.selectors.compare_cases``
    # pages them).
    pairs: tuple[RunPair, ...]
    counts: Mapping[CaseChange, int]
    # The kinds, affordances and tags of the compared cases (the filters).
    options: OptionValues
    notes: tuple[str, ...] = ()
    snapshot_id: str | None = None
    # Shown first: why the comparison may not mean what it seems to.
    warnings: tuple[str, ...] = ()
    differences: tuple[tuple[str, ConfigDifference], ...] = ()
    # The paired comparisons of ``--stat`` over the same runs (None: the
    # runs' case ids cannot be grouped into scenarios, ``stat_note`` says why).
    stat: StatGateVerdict | None = None
    stat_note: str = ""

    @property
    def change_counts(self) -> dict[CaseChange, int]:
        return {change: self.counts.get(change, 0) for change in CaseChange}

    @property
    def case_total(self) -> int:
        return sum(self.counts.values())

    @property
    def cases(self) -> tuple[CaseDiff, ...]:
        """Every case of the comparison, flips first (read from the
        database on each use: a page reads ``case_diffs_page`` instead)."""
        return tuple(case_diffs_iter(self.pairs, CaseFilter()))


# --- building the core's inputs -----------------------------------------------


def run_summary_of(run: Run, cases: Sequence[CaseRow] | None) -> RunSummary:
    """The eval-store run summary of ``run`` as the gate reads it.

    ``cases`` become the summary's case results (``None`` or empty: the run
    carries none, so the gate lists no flipped cases for it).
    """
    return RunSummary(
        run_id=run.run_id,
        benchmark_id=run.benchmark.benchmark_id,
        status=_STATUS[Run.Status(run.status)],
        started_at=run.started_at.isoformat(),
        completed_at=run.completed_at.isoformat() if run.completed_at else None,
        total_cases=run.total_cases,
        passed_cases=run.passed_cases,
        failed_cases=run.failed_cases,
        metrics=numeric_metrics(run.metrics or {}),
        git_ref=run.git_ref or None,
        case_results=tuple(
            CoreCaseResult(case.case_id, case.passed, duration_ms=case.latency_ms)
            for case in cases
        )
        if cases
        else None,
    )


def store_of(
    root: str,
    runs: Iterable[RunSummary],
    baselines: Iterable[BaselineSnapshot] = (),
) -> StoreContents:
    return StoreContents(
        root=root,
        kinds=frozenset(StoreKind),
        runs=tuple(StoredItem(f"runs/{run.run_id}.json", run) for run in runs),
        baselines=tuple(
            StoredItem(f"baselines/{snapshot.snapshot_id}.json", snapshot)
            for snapshot in baselines
        ),
    )


def benchmark_section(
    benchmark_id: str,
    verdict: GateVerdict,
    *,
    base_run_id: str | None,
    base_run: Run | None,
    base_pass_rate: float | None,
    base_metrics: Mapping[str, float],
    candidate_run: Run | None,
) -> BenchmarkSection:
    delta = next((d for d in verdict.deltas if d.benchmark_id == benchmark_id), None)
    candidate_metrics = numeric_metrics(candidate_run.metrics) if candidate_run else {}
    judged = {m.name: m for m in delta.metric_deltas} if delta else {}
    rows = metric_rows(base_metrics, candidate_metrics, judged)
    candidate_rate = candidate_run.pass_rate if candidate_run else None
    if delta is not None:
        rate_row = MetricRow(
            PASS_RATE,
            delta.base_pass_rate,
            delta.candidate_pass_rate,
            delta.pass_rate_delta,
            MetricDirection.HIGHER_IS_BETTER,
            delta.pass_rate_outcome.value,
        )
    else:
        rate_row = MetricRow(
            PASS_RATE,
            base_pass_rate,
            candidate_rate,
            None,
            MetricDirection.HIGHER_IS_BETTER,
            ONLY_BASE if candidate_run is None else ONLY_CANDIDATE,
        )
    return BenchmarkSection(
        benchmark_id=benchmark_id,
        base_run_id=base_run_id,
        candidate_run_id=candidate_run.run_id if candidate_run else None,
        base_run=base_run,
        candidate_run=candidate_run,
        metrics=(rate_row, *rows),
    )


# --- the two comparisons ------------------------------------------------------


def comparison_for_runs(*, base_run_id: str, candidate_run_id: str) -> Comparison:
    """Run ``candidate_run_id`` against run ``base_run_id`` of the same
    benchmark, judged by the gate in stores mode (the base run is the
    baseline). Raises ``NotFound`` for an unknown run and
    ``ComparisonRefused`` for runs of two benchmarks. Three queries; for
    two completed runs one more, and the last comparisons of completed
    runs whose rows and case results did not change are kept in memory
    (``evals.services.compare_kept``)."""
    runs = runs_by_id([base_run_id, candidate_run_id])
    base = runs.get(base_run_id) or run_get(run_id=base_run_id)
    candidate = runs.get(candidate_run_id) or run_get(run_id=candidate_run_id)
    benchmark_id = base.benchmark.benchmark_id
    if candidate.benchmark.benchmark_id != benchmark_id:
        raise ComparisonRefused(
            "runs of different benchmarks cannot be compared: "
            f"{benchmark_id} vs {candidate.benchmark.benchmark_id}",
            details={"base": base_run_id, "candidate": candidate_run_id},
        )
    if base.status != Run.Status.COMPLETED or candidate.status != Run.Status.COMPLETED:
        return _runs_comparison(base, candidate)
    cases = case_fingerprints([base.pk, candidate.pk])
    key = (run_key(base, cases[base.pk]), run_key(candidate, cases[candidate.pk]))
    return kept_or_built(key, lambda: _runs_comparison(base, candidate))


def _runs_comparison(base: Run, candidate: Run) -> Comparison:
    benchmark_id = base.benchmark.benchmark_id
    pair = RunPair(benchmark_id, base.pk, base.run_id, candidate.pk, candidate.run_id)
    # The gate reads case results only for the flips: the flipped cases of
    # both sides list exactly the flips all of them would.
    flipped = flipped_cases(pair)
    base_summary = _summary_of(
        base, tuple(CoreCaseResult(case_id, passed) for case_id, passed in flipped)
    )
    candidate_summary = _summary_of(
        candidate,
        tuple(CoreCaseResult(case_id, not passed) for case_id, passed in flipped),
    )
    verdict = evaluate_gate(
        base=store_of(f"run {base.run_id}", [base_summary]),
        candidate=store_of(f"run {candidate.run_id}", [candidate_summary]),
    )
    stat, stat_note = _stat_from_counts(
        verdict, (base, base_summary), (candidate, candidate_summary)
    )
    notes = [
        f"{side} run {run.run_id} is {run.status}: the gate compares completed "
        "runs only."
        for side, run in (("base", base), ("candidate", candidate))
        if run.status != Run.Status.COMPLETED
    ]
    if base.source == Run.Source.HARNESS and candidate.source == Run.Source.HARNESS:
        notes.extend(
            version_notes(
                (base.config or {}).get("versions"),
                (candidate.config or {}).get("versions"),
            )
        )
    section = benchmark_section(
        benchmark_id,
        verdict,
        base_run_id=base.run_id,
        base_run=base,
        base_pass_rate=base.pass_rate,
        base_metrics=numeric_metrics(base.metrics or {}),
        candidate_run=candidate,
    )
    warnings, differences = configuration_warnings([(benchmark_id, base, candidate)])
    if base.pk == candidate.pk:
        warnings = [same_run_warning(base.run_id)]
    return Comparison(
        mode="runs",
        verdict=verdict,
        sections=(section,),
        pairs=(pair,),
        counts=change_counts([pair]),
        options=option_values([pair]),
        notes=tuple(notes),
        warnings=tuple(warnings),
        differences=tuple(differences),
        stat=stat,
        stat_note=stat_note,
    )


def _summary_of(run: Run, results: tuple[CoreCaseResult, ...]) -> RunSummary:
    return replace(run_summary_of(run, None), case_results=results)


def _stat_from_counts(
    verdict: GateVerdict,
    base: tuple[Run, RunSummary],
    candidate: tuple[Run, RunSummary],
) -> tuple[StatGateVerdict | None, str]:
    """The paired comparisons of two runs from each scenario's counts
    (``evals.core.compare_sums``): two queries of a row per scenario. Case
    ids split by digits of another script take the per-case path."""
    found: dict[tuple[str, str], tuple[RunSummary, Epochs | None]] = {}
    found_counts = scenario_counts([base[0].pk, candidate[0].pk])
    counted = [
        (run, summary, found_counts[run.pk]) for run, summary in (base, candidate)
    ]
    if not all(split_as_python(counts) for _, _, counts in counted):
        rows = case_rows([base[0].pk, candidate[0].pk])
        return stat_of(
            verdict,
            base=store_of(
                f"run {base[0].run_id}", [run_summary_of(base[0], rows[base[0].pk])]
            ),
            candidate=store_of(
                f"run {candidate[0].run_id}",
                [run_summary_of(candidate[0], rows[candidate[0].pk])],
            ),
        )
    try:
        for run, summary, counts in counted:
            epochs = epochs_from_counts(counts) if counts else None
            found[(summary.benchmark_id, run.run_id)] = (summary, epochs)
        return stat_gate_from_counts(verdict, found), ""
    except StatInputError as error:
        return None, f"No paired comparison: {error.message}"


def configuration_warnings(
    pairs: Sequence[tuple[str, Run | None, Run | None]],
    *,
    name_benchmarks: bool = False,
) -> tuple[list[str], list[tuple[str, ConfigDifference]]]:
    warnings: list[str] = []
    differences: list[tuple[str, ConfigDifference]] = []
    for benchmark_id, base, candidate in pairs:
        if base is None or candidate is None or base.pk == candidate.pk:
            continue
        found = configuration_differences(
            base.config or {},
            candidate.config or {},
            base_suite_sha256=base.suite_sha256,
            candidate_suite_sha256=candidate.suite_sha256,
        )
        warning = configuration_warning(
            found, benchmark_id=benchmark_id if name_benchmarks else None
        )
        if warning is not None:
            warnings.append(warning)
            differences.extend((benchmark_id, d) for d in found)
    return warnings, differences
