"""The overview's standing of each benchmark against its baseline, judged
by the gate as ``python -m evals.gate`` judges it. Reads only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evals.core.formats_types import (
    BaselineSnapshot,
)
from evals.core.gate import (
    evaluate_gate,
)
from evals.models import Run
from evals.selectors.baselines import (
    SnapshotEntry,
    baselines_by_benchmark,
)
from evals.selectors.runs import (
    latest_completed_runs,
)
from evals.services.compare import run_summary_of, store_of


@dataclass(frozen=True, slots=True)
class BaselineStanding:
    """A benchmark against its baseline on the overview."""

    benchmark_id: str
    snapshot_id: str
    baseline_run_id: str
    candidate_run_id: str | None
    regressions: tuple[str, ...]
    improvements: tuple[str, ...]

    @property
    def regressed(self) -> bool:
        return bool(self.regressions)


def baseline_standings(
    baselines: Mapping[str, SnapshotEntry] | None = None,
) -> dict[str, BaselineStanding]:
    """Each benchmark that has a baseline (``baselines_by_benchmark``)
    judged by the gate: its latest completed run against its entry, with the
    gate's own regression and improvement lines. Cases are not read; two
    queries beyond the baselines, whatever the number of benchmarks."""
    if baselines is None:
        baselines = baselines_by_benchmark()
    latest = latest_completed_runs(baselines)
    return {
        benchmark_id: _standing(baselines[benchmark_id], latest.get(benchmark_id))
        for benchmark_id in sorted(baselines)
    }


def run_baseline_standing(run: Run) -> BaselineStanding | None:
    """One run judged by the gate against its benchmark's baseline (the
    same baseline and wording as the overview), or ``None`` when no
    snapshot covers the benchmark or the run is not completed."""
    if run.status != Run.Status.COMPLETED:
        return None
    found = baselines_by_benchmark().get(run.benchmark.benchmark_id)
    return _standing(found, run) if found is not None else None


def _standing(found: SnapshotEntry, run: Run | None) -> BaselineStanding:
    # The gate over a one-entry snapshot: every line it prints is about
    # this benchmark, worded as the full gate words it.
    document = BaselineSnapshot(
        snapshot_id=found.snapshot_id,
        created_at=found.created_at,
        source_root_dir="evalsite database",
        benchmarks=(found.entry,),
    )
    verdict = evaluate_gate(
        base=store_of("evalsite database", [], [document]),
        candidate=store_of(
            "evalsite database (latest completed runs)",
            [run_summary_of(run, None)] if run is not None else [],
        ),
        snapshot_id=found.snapshot_id,
    )
    return BaselineStanding(
        benchmark_id=found.entry.benchmark_id,
        snapshot_id=found.snapshot_id,
        baseline_run_id=found.entry.run_id,
        candidate_run_id=run.run_id if run is not None else None,
        regressions=verdict.regressions,
        improvements=verdict.improvements,
    )
