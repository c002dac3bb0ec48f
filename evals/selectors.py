"""Reads of the dashboard pages: compare, trends and the overview.

Every function here reads and never writes. The comparison reads are shaped
so that the number of queries does not grow with the number of cases: case
rows of any number of runs come back in ONE query, as narrow tuples without
the (large) scenario artifact, and only the drill-down reads the two
artifacts it shows. Lists that can grow without bound (runs of a benchmark,
snapshots) are capped or paginated by the caller.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import (
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce

from core.errors import NotFound, SchemaInvalid
from evals.core.baselines import validate_baseline_snapshot
from evals.core.formats_types import BaselineBenchmark
from evals.core.formats_types import BaselineSnapshot as SnapshotDocument
from evals.core.gate import DEFAULT_SNAPSHOT_ID
from evals.core.metric_registry import MetricDirection, direction
from evals.models import BaselineSnapshot, Benchmark, CaseResult, InvalidUpload, Run

# Snapshots read to find "the baseline of a benchmark": the CI gate's
# required-main plus the newest ones. A benchmark only in older snapshots
# shows no baseline on the dashboard; the baseline pages still list them all.
RECENT_SNAPSHOTS = 20
# Runs on a trend chart: the newest ones; the table pages through the same.
TREND_RUNS = 500
PASS_RATE = "passRate"  # noqa: S105 (a metric name, not a secret)


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case of a run without its artifact: what the case table needs."""

    case_id: str
    passed: bool
    latency_ms: float | None
    stimulus_kind: str
    affordance: str
    tags: tuple[str, ...]
    error: str


@dataclass(frozen=True, slots=True)
class SnapshotEntry:
    """A benchmark's entry in a stored snapshot, and which snapshot."""

    snapshot_id: str
    created_at: str
    entry: BaselineBenchmark


def run_get(*, run_id: str) -> Run:
    """A run of any benchmark with its benchmark; ``NotFound`` if absent."""
    run = Run.objects.select_related("benchmark").filter(run_id=run_id).first()
    if run is None:
        raise NotFound(f"no run {run_id!r}", details={"runId": run_id})
    return run


def runs_by_id(run_ids: Iterable[str]) -> dict[str, Run]:
    """The runs among ``run_ids`` that exist, keyed by run id (one query)."""
    wanted = sorted(set(run_ids))
    if not wanted:
        return {}
    runs = Run.objects.select_related("benchmark").filter(run_id__in=wanted)
    return {run.run_id: run for run in runs}


def case_rows(run_pks: Sequence[int]) -> dict[int, list[CaseRow]]:
    """Case rows of each run, keyed by run pk, sorted by case id (one query).

    ``details`` is never read here: a scenario artifact holds the rendered
    frame and outputs, and reading 10,000 of them would dominate the page.
    """
    out: dict[int, list[CaseRow]] = {pk: [] for pk in run_pks}
    if not run_pks:
        return out
    rows = (
        CaseResult.objects.filter(run_id__in=list(run_pks))
        .order_by("run_id", "case_id")
        .values_list(
            "run_id",
            "case_id",
            "passed",
            "latency_ms",
            "stimulus_kind",
            "affordance",
            "tags",
            "error",
        )
    )
    for run_pk, case_id, passed, latency, kind, affordance, tags, error in rows:
        out[run_pk].append(
            CaseRow(
                case_id=case_id,
                passed=passed,
                latency_ms=latency,
                stimulus_kind=kind,
                affordance=affordance,
                tags=tuple(str(tag) for tag in tags or ()),
                error=error,
            )
        )
    return out


def case_pair(
    *, base: Run | None, candidate: Run | None, case_id: str
) -> tuple[CaseResult | None, CaseResult | None]:
    """The case ``case_id`` of both runs, artifacts included (one query)."""
    pks = [run.pk for run in (base, candidate) if run is not None]
    found = {
        case.run_id: case
        for case in CaseResult.objects.filter(run_id__in=pks, case_id=case_id)
    }
    return (
        found.get(base.pk) if base is not None else None,
        found.get(candidate.pk) if candidate is not None else None,
    )


def _recency() -> Any:
    return Coalesce(F("completed_at"), F("started_at"))


def latest_completed_runs(benchmark_ids: Iterable[str]) -> dict[str, Run]:
    """The latest completed run of each of ``benchmark_ids`` (one query).

    Latest as the gate means it: newest completedAt, else startedAt; a tie
    goes to the greater run id.
    """
    wanted = sorted(set(benchmark_ids))
    if not wanted:
        return {}
    newest = (
        Run.objects.filter(benchmark=OuterRef("benchmark"), status=Run.Status.COMPLETED)
        .annotate(recency=_recency())
        .order_by("-recency", "-run_id")
        .values("pk")[:1]
    )
    runs = Run.objects.select_related("benchmark").filter(
        benchmark__benchmark_id__in=wanted, pk=Subquery(newest)
    )
    return {run.benchmark.benchmark_id: run for run in runs}


def latest_runs(
    *, kind: str | None = None, search: str | None = None
) -> QuerySet[Benchmark]:
    """Benchmarks with the pk of their latest run of any status
    (``latest_run_pk``) and their run count, the most recently started run
    first; benchmarks that never ran come last."""
    newest = Run.objects.filter(benchmark=OuterRef("pk")).order_by("-started_at", "-pk")
    benchmarks = Benchmark.objects.annotate(
        latest_run_pk=Subquery(newest.values("pk")[:1], output_field=IntegerField()),
        latest_started_at=Subquery(newest.values("started_at")[:1]),
        run_count=Count("runs"),
    )
    if kind:
        benchmarks = benchmarks.filter(kind=kind)
    if search:
        benchmarks = benchmarks.filter(
            Q(benchmark_id__icontains=search) | Q(title__icontains=search)
        )
    return benchmarks.order_by(
        F("latest_started_at").desc(nulls_last=True), "benchmark_id"
    )


def runs_in_pks(pks: Iterable[int | None]) -> dict[int, Run]:
    wanted = [pk for pk in pks if pk is not None]
    return {run.pk: run for run in Run.objects.filter(pk__in=wanted)}


def snapshot_get(*, snapshot_id: str) -> tuple[BaselineSnapshot, SnapshotDocument]:
    """A stored snapshot and its parsed document; ``NotFound`` if absent.

    A stored document that no longer validates raises ``SchemaInvalid``
    (stored snapshots are validated on the way in, so this means tampering).
    """
    row = BaselineSnapshot.objects.filter(snapshot_id=snapshot_id).first()
    if row is None:
        raise NotFound(
            f"benchmark baseline snapshot not found: {snapshot_id}",
            details={"snapshotId": snapshot_id},
        )
    return row, validate_baseline_snapshot(row.document)


def snapshot_ids(limit: int = 200) -> list[str]:
    return list(
        BaselineSnapshot.objects.order_by("-created_at").values_list(
            "snapshot_id", flat=True
        )[:limit]
    )


def baselines_by_benchmark() -> dict[str, SnapshotEntry]:
    """Each benchmark's baseline: its entry in ``required-main`` (what the CI
    gate uses) if that snapshot covers it, else in the newest snapshot that
    does, among the ``RECENT_SNAPSHOTS`` newest (two queries)."""
    rows = list(
        BaselineSnapshot.objects.order_by("-created_at", "-pk")[:RECENT_SNAPSHOTS]
    )
    if not any(row.snapshot_id == DEFAULT_SNAPSHOT_ID for row in rows):
        rows = (
            list(BaselineSnapshot.objects.filter(snapshot_id=DEFAULT_SNAPSHOT_ID))
            + rows
        )
    rows.sort(key=lambda row: row.snapshot_id != DEFAULT_SNAPSHOT_ID)
    out: dict[str, SnapshotEntry] = {}
    for row in rows:
        try:
            document = validate_baseline_snapshot(row.document)
        except SchemaInvalid:
            continue
        for entry in document.benchmarks:
            out.setdefault(
                entry.benchmark_id,
                SnapshotEntry(document.snapshot_id, document.created_at, entry),
            )
    return out


def benchmark_get(*, benchmark_id: str) -> Benchmark:
    benchmark = Benchmark.objects.filter(benchmark_id=benchmark_id).first()
    if benchmark is None:
        raise NotFound(
            f"no benchmark {benchmark_id!r}", details={"benchmarkId": benchmark_id}
        )
    return benchmark


def benchmark_choices() -> list[tuple[str, str]]:
    return list(
        Benchmark.objects.order_by("benchmark_id").values_list("benchmark_id", "kind")
    )


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One finished run on a trend: its metrics and where it lives."""

    run_id: str
    url: str
    started_at: datetime
    completed_at: datetime | None
    status: str
    pass_rate: float
    value: float | None
    metrics: Mapping[str, float]
    verdict_passed: bool | None
    previous_run_id: str | None

    def metric(self, name: str) -> float | None:
        return self.pass_rate if name == PASS_RATE else self.metrics.get(name)


@dataclass(frozen=True, slots=True)
class Trend:
    """A metric over the finished runs of one benchmark, oldest first."""

    benchmark: Benchmark
    metric: str
    direction: MetricDirection
    points: tuple[TrendPoint, ...]
    metric_names: tuple[str, ...]
    baseline: SnapshotEntry | None

    @property
    def baseline_value(self) -> float | None:
        if self.baseline is None:
            return None
        if self.metric == PASS_RATE:
            return self.baseline.entry.pass_rate
        return (self.baseline.entry.metrics or {}).get(self.metric)


def numeric_metrics(values: Mapping[str, Any]) -> dict[str, float]:
    """The finite numbers of a metrics map (a bool is not a metric)."""
    return {
        name: value
        for name, value in values.items()
        if type(value) in (int, float) and math.isfinite(value)
    }


def benchmark_trend(
    *, benchmark: Benchmark, metric: str, limit: int = TREND_RUNS
) -> Trend:
    """``metric`` (``passRate`` or a metric name) over the newest ``limit``
    finished runs of ``benchmark`` (those with completedAt: completed,
    partial or failed), with the benchmark's baseline entry. Three queries
    whatever the number of runs."""
    runs = list(
        Run.objects.filter(benchmark=benchmark, completed_at__isnull=False)
        .order_by("-completed_at", "-pk")
        .only(
            "run_id",
            "started_at",
            "completed_at",
            "status",
            "total_cases",
            "passed_cases",
            "metrics",
            "verdict_passed",
        )[:limit]
    )
    runs.reverse()
    points: list[TrendPoint] = []
    names: set[str] = set()
    previous: str | None = None
    for run in runs:
        metrics = numeric_metrics(run.metrics or {})
        names.update(metrics)
        points.append(
            TrendPoint(
                run_id=run.run_id,
                url=run.get_absolute_url(),
                started_at=run.started_at,
                completed_at=run.completed_at,
                status=run.status,
                pass_rate=run.pass_rate,
                value=run.pass_rate if metric == PASS_RATE else metrics.get(metric),
                metrics=metrics,
                verdict_passed=run.verdict_passed,
                previous_run_id=previous,
            )
        )
        previous = run.run_id
    return Trend(
        benchmark=benchmark,
        metric=metric,
        direction=MetricDirection.HIGHER_IS_BETTER
        if metric == PASS_RATE
        else direction(metric),
        points=tuple(points),
        metric_names=(PASS_RATE, *sorted(names)),
        baseline=baselines_by_benchmark().get(benchmark.benchmark_id),
    )


def recent_run_ids(limit: int = 50) -> list[str]:
    return list(
        Run.objects.order_by("-started_at", "-pk").values_list("run_id", flat=True)[
            :limit
        ]
    )


def invalid_uploads_pending(limit: int) -> tuple[int, list[InvalidUpload]]:
    """How many invalid uploads wait for review, and the newest ``limit``."""
    pending = InvalidUpload.objects.filter(status=InvalidUpload.Status.PENDING)
    return pending.count(), list(pending.order_by("-created_at", "-pk")[:limit])
