"""What the compare tests share: runs stored as if posted over REST, with
their case results, and baseline snapshots made of stored runs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from evals.core.baselines import snapshot_from_runs
from evals.models import BaselineSnapshot, Benchmark, CaseResult, Run
from evals.services.compare import run_summary_of

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
# Forty scenario ids, in order: s00 .. s39.
SCENARIOS = [f"s{index:02d}" for index in range(40)]

CaseFields = Callable[[int, str, bool], dict[str, Any]]


def posted_run(
    benchmark_id: str,
    run_id: str,
    cases: dict[str, bool],
    *,
    minutes: int = 0,
    metrics: dict[str, float] | None = None,
    status: str = Run.Status.COMPLETED,
    case_fields: CaseFields | None = None,
) -> Run:
    """A run of the pack ``benchmark_id`` as if posted over REST, started
    ``minutes`` after T0, with a case result for each of ``cases`` (id ->
    passed), stored in id order. ``case_fields(index, case_id, passed)``
    gives a case result's other fields (none by default)."""
    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id=benchmark_id,
        defaults={"kind": Benchmark.Kind.PACK, "title": benchmark_id},
    )
    passed = sum(cases.values())
    when = T0 + timedelta(minutes=minutes)
    run = Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status=status,
        source=Run.Source.API,
        started_at=when,
        completed_at=when + timedelta(seconds=30),
        total_cases=len(cases),
        passed_cases=passed,
        failed_cases=len(cases) - passed,
        metrics=metrics or {},
    )
    CaseResult.objects.bulk_create(
        CaseResult(
            run=run,
            case_id=case_id,
            passed=ok,
            **(case_fields(index, case_id, ok) if case_fields else {}),
        )
        for index, (case_id, ok) in enumerate(sorted(cases.items()))
    )
    return run


def failing_first(failing: int) -> dict[str, bool]:
    """The forty scenarios, the first ``failing`` of them failed."""
    return {s: index >= failing for index, s in enumerate(SCENARIOS)}


def store_snapshot(snapshot_id: str, runs: list[Run]) -> BaselineSnapshot:
    """A baseline snapshot of ``runs`` (their stored summaries), stored."""
    document = snapshot_from_runs(
        [run_summary_of(run, None) for run in runs],
        snapshot_id=snapshot_id,
        created_at="2026-03-01T00:00:00Z",
        source_root_dir="evalsite database",
    )
    return BaselineSnapshot.objects.create(
        snapshot_id=snapshot_id, created_at=T0, document=document.to_wire()
    )
