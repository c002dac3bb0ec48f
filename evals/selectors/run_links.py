"""What a run's page offers to compare it with: its benchmark's baseline
run and the run of the same benchmark started just before it. Reads only."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from evals.models import Run
from evals.selectors.baselines import SnapshotEntry, baselines_by_benchmark


@dataclass(frozen=True, slots=True)
class RunCompareLinks:
    """The two runs a run page links a comparison with (``None`` where
    there is none); ``baseline_stored`` says whether the baseline's run is
    in the database (a snapshot may have been imported without it)."""

    run_id: str
    benchmark_id: str
    baseline: SnapshotEntry | None
    baseline_stored: bool
    previous: Run | None

    @property
    def is_baseline(self) -> bool:
        return self.baseline is not None and self.baseline.entry.run_id == self.run_id


def previous_run(run: Run) -> Run | None:
    """The run of ``run``'s benchmark started just before it, whatever its
    status (a tie on the start time goes to the one recorded earlier)."""
    return (
        Run.objects.filter(benchmark_id=run.benchmark_id)
        .filter(
            Q(started_at__lt=run.started_at)
            | Q(started_at=run.started_at, pk__lt=run.pk)
        )
        .order_by("-started_at", "-pk")
        .only("run_id", "status", "started_at")
        .first()
    )


def run_compare_links(run: Run) -> RunCompareLinks:
    """The baseline entry of ``run``'s benchmark (as the overview and the CI
    gate choose it) and its previous run; three queries."""
    benchmark_id = run.benchmark.benchmark_id
    baseline = baselines_by_benchmark().get(benchmark_id)
    stored = (
        baseline is not None
        and Run.objects.filter(
            run_id=baseline.entry.run_id, benchmark_id=run.benchmark_id
        ).exists()
    )
    return RunCompareLinks(
        run_id=run.run_id,
        benchmark_id=benchmark_id,
        baseline=baseline,
        baseline_stored=stored,
        previous=previous_run(run),
    )
