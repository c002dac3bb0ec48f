"""A stored baseline snapshot against the latest completed run of each of
its benchmarks, judged by the CI gate in snapshot mode (the run-vs-run
comparison and the pieces both share: ``evals.services.compare``).

Reads only; nothing here writes or logs. Query counts do not depend on the
number of cases.
"""

from __future__ import annotations

from evals.core.baselines import validate_baseline_snapshot
from evals.core.compare import CaseRow
from evals.core.formats_types import BaselineSnapshot
from evals.core.gate import evaluate_gate
from evals.selectors.baselines import snapshot_get
from evals.selectors.compare_cases import RunPair, change_counts, option_values
from evals.selectors.runs import case_rows, latest_completed_runs, runs_by_id
from evals.services.compare import (
    BenchmarkSection,
    Comparison,
    benchmark_section,
    configuration_warnings,
    run_summary_of,
    stat_of,
    store_of,
)


def _snapshot_comparison(document: BaselineSnapshot, *, with_cases: bool) -> Comparison:
    benchmark_ids = [entry.benchmark_id for entry in document.benchmarks]
    latest = latest_completed_runs(benchmark_ids)
    base_runs = runs_by_id(e.run_id for e in document.benchmarks)
    rows: dict[int, list[CaseRow]] = {}
    if with_cases:
        pks = [run.pk for run in (*latest.values(), *base_runs.values())]
        rows = case_rows(sorted(set(pks)))
    base_summaries = [
        run_summary_of(run, rows.get(run.pk)) for run in base_runs.values()
    ]
    base_store = store_of("evalsite database", base_summaries, [document])
    candidate_store = store_of(
        "evalsite database (latest completed runs)",
        [run_summary_of(run, rows.get(run.pk)) for run in latest.values()],
    )
    verdict = evaluate_gate(
        base=base_store, candidate=candidate_store, snapshot_id=document.snapshot_id
    )
    stat, stat_note = stat_of(verdict, base=base_store, candidate=candidate_store)
    sections: list[BenchmarkSection] = []
    pairs: list[RunPair] = []
    notes: list[str] = []
    for entry in sorted(document.benchmarks, key=lambda e: e.benchmark_id):
        base_run = base_runs.get(entry.run_id)
        if base_run is not None and base_run.benchmark.benchmark_id != (
            entry.benchmark_id
        ):
            base_run = None
        candidate_run = latest.get(entry.benchmark_id)
        sections.append(
            benchmark_section(
                entry.benchmark_id,
                verdict,
                base_run_id=entry.run_id,
                base_run=base_run,
                base_pass_rate=entry.pass_rate,
                base_metrics=dict(entry.metrics or {}),
                candidate_run=candidate_run,
            )
        )
        if not with_cases or candidate_run is None:
            continue
        base_rows = rows.get(base_run.pk) if base_run is not None else None
        if not base_rows:
            notes.append(
                f"{entry.benchmark_id}: baseline run {entry.run_id} has no case "
                "results in this database, so its cases are not compared."
            )
            continue
        assert base_run is not None  # it has rows
        pairs.append(
            RunPair(
                entry.benchmark_id,
                base_run.pk,
                entry.run_id,
                candidate_run.pk,
                candidate_run.run_id,
            )
        )
    warnings, differences = configuration_warnings(
        [(s.benchmark_id, s.base_run, s.candidate_run) for s in sections],
        name_benchmarks=True,
    )
    return Comparison(
        mode="snapshot",
        verdict=verdict,
        sections=tuple(sections),
        pairs=tuple(pairs),
        counts=change_counts(pairs),
        options=option_values(pairs),
        notes=tuple(notes),
        snapshot_id=document.snapshot_id,
        warnings=tuple(warnings),
        differences=tuple(differences),
        stat=stat,
        stat_note=stat_note,
    )


def comparison_for_snapshot(*, snapshot_id: str) -> Comparison:
    """The latest completed run of each benchmark of stored snapshot
    ``snapshot_id`` against it, judged by the gate in snapshot mode; cases
    are compared where the snapshot's run is in the database. Raises
    ``NotFound`` for an unknown snapshot. Five queries."""
    document = validate_baseline_snapshot(
        snapshot_get(snapshot_id=snapshot_id).document
    )
    return _snapshot_comparison(document, with_cases=True)
