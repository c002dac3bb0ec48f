"""Reads of the trends page: a metric over the finished runs of a benchmark."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from evals.core.compare import PASS_RATE, numeric_metrics
from evals.core.metric_registry import MetricDirection, direction
from evals.models import (
    Benchmark,
    Run,
)
from evals.selectors.baselines import SnapshotEntry, baselines_by_benchmark

# Runs on a trend chart: the newest ones; the table pages through the same.
TREND_RUNS = 500


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
    # For the paired comparisons: which run, and its counts.
    pk: int = 0
    passed_cases: int = 0
    total_cases: int = 0

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
                pk=run.pk,
                passed_cases=run.passed_cases,
                total_cases=run.total_cases,
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
