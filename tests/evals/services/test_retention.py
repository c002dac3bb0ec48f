"""Case-result retention: the cases of old finished runs go in batches; the
run, its counts and summary stay; queued and running runs are never swept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from evals.models import Benchmark, CaseResult, Run
from evals.services.retention import CaseSweepResult, case_results_sweep
from evalsite.dispatch import task_get
from tests.builders import benchmark_make

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def run_with_cases(run_id: str, *, age_days: int, cases: int, status: str) -> Run:
    run = Run.objects.create(
        run_id=run_id,
        benchmark=Benchmark.objects.first() or benchmark_make(),
        status=status,
        source=Run.Source.API,
        started_at=NOW - age_days * DAY,
        total_cases=cases,
        passed_cases=cases,
        summary={"runId": run_id, "totalCases": cases},
    )
    CaseResult.objects.bulk_create(
        CaseResult(run=run, case_id=f"case-{n}", passed=True) for n in range(cases)
    )
    return run


def cases_left() -> dict[str, int]:
    return {
        run.run_id: run.case_results.count() for run in Run.objects.order_by("run_id")
    }


def test_old_finished_runs_lose_their_cases_and_keep_their_summary(
    log_lines: Any,
) -> None:
    run_with_cases("a-old", age_days=40, cases=5, status="completed")
    run_with_cases("b-old-failed", age_days=35, cases=2, status="failed")
    run_with_cases("c-recent", age_days=10, cases=3, status="completed")
    run_with_cases("d-old-running", age_days=50, cases=4, status="running")
    run_with_cases("e-old-queued", age_days=50, cases=1, status="queued")

    result = case_results_sweep(now=NOW, days=30, batch=2)

    assert result == CaseSweepResult(deleted=7, batches=4, runs=2, more=False)
    assert cases_left() == {
        "a-old": 0,
        "b-old-failed": 0,
        "c-recent": 3,
        "d-old-running": 4,
        "e-old-queued": 1,
    }
    kept = Run.objects.get(run_id="a-old")
    assert (kept.total_cases, kept.passed_cases, kept.summary) == (
        5,
        5,
        {"runId": "a-old", "totalCases": 5},
    )
    assert log_lines("[Retention]") == [
        "[Retention] sweep kind=case_results deleted=7 batches=4 runs=2 more=false"
    ]


def test_a_sweep_stops_at_its_batch_cap_and_the_next_goes_on() -> None:
    run_with_cases("a", age_days=40, cases=3, status="completed")
    run_with_cases("b", age_days=39, cases=3, status="partial")
    first = case_results_sweep(now=NOW, days=30, batch=2, max_batches=3)
    assert first == CaseSweepResult(deleted=5, batches=3, runs=1, more=True)
    second = case_results_sweep(now=NOW, days=30, batch=2, max_batches=3)
    assert second == CaseSweepResult(deleted=1, batches=1, runs=1, more=False)
    assert cases_left() == {"a": 0, "b": 0}


def test_zero_days_the_default_keeps_every_case(settings: Any) -> None:
    run_with_cases("a", age_days=4000, cases=2, status="completed")
    assert settings.CASE_RESULT_RETENTION_DAYS == 0
    assert case_results_sweep(now=NOW) == CaseSweepResult(0, 0, 0, False)
    assert cases_left() == {"a": 2}


def test_beat_runs_the_sweep_by_name(settings: Any) -> None:
    settings.CASE_RESULT_RETENTION_DAYS = 1
    run_with_cases("a", age_days=4000, cases=2, status="completed")
    assert settings.CELERY_BEAT_SCHEDULE["evals-retention-sweep"]["task"] == (
        "evals.retention_sweep"
    )
    assert task_get("evals.retention_sweep").apply().get() == 2
    assert cases_left() == {"a": 0}
