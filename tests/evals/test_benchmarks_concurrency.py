"""Idempotent writes under concurrency (PostgreSQL): the same document posted
by several callers at once is stored once and every caller gets a clean
answer; different documents under one id give exactly one winner."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from core.errors import Conflict
from evals.examples import example_shadow_record
from evals.models import BaselineSnapshot, Benchmark, CaseResult, Run, ShadowRecord
from evals.services.baselines import baseline_snapshot_store
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import benchmark_pack_create
from evals.services.shadow_records import shadow_records_ingest
from tests.concurrency import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CALLERS = 8


def manifest(title: str = "t") -> dict:
    return {
        "schemaVersion": 1,
        "benchmarkId": "ama",
        "title": title,
        "cases": [{"id": "c0", "prompt": "p"}, {"id": "c1", "prompt": "p"}],
    }


def run_summary(passed: int = 1) -> dict:
    return {
        "schemaVersion": 1,
        "runId": "run-1",
        "benchmarkId": "ama",
        "status": "completed",
        "startedAt": "2026-03-06T10:00:00.000Z",
        "totalCases": 2,
        "passedCases": passed,
        "failedCases": 2 - passed,
        "caseResults": [
            {"caseId": "c0", "passed": passed >= 1},
            {"caseId": "c1", "passed": passed >= 2},
        ],
    }


def test_same_pack_at_once_is_created_once() -> None:
    results = run_together(
        *[lambda: benchmark_pack_create(document=manifest())] * CALLERS
    )

    assert Counter(result.outcome for result in results) == {
        "created": 1,
        "unchanged": CALLERS - 1,
    }
    assert Benchmark.objects.count() == 1


def test_same_run_at_once_is_recorded_once() -> None:
    benchmark_pack_create(document=manifest())

    results = run_together(
        *[lambda: benchmark_run_record(document=run_summary())] * CALLERS
    )

    assert Counter(result.created for result in results) == {
        True: 1,
        False: CALLERS - 1,
    }
    assert Run.objects.count() == 1
    assert CaseResult.objects.count() == 2


def test_different_runs_under_one_id_have_one_winner() -> None:
    benchmark_pack_create(document=manifest())

    results = run_together(
        lambda: benchmark_run_record(document=run_summary(passed=1)),
        lambda: benchmark_run_record(document=run_summary(passed=2)),
    )

    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(conflicts) == 1
    assert conflicts[0].message == "run run-1 already exists with different content"
    assert Run.objects.get().passed_cases in (1, 2)
    assert CaseResult.objects.count() == 2


def test_same_shadow_batch_at_once_is_stored_once(settings: Any) -> None:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    records = [example_shadow_record(f"t{n}") for n in range(200)]

    results = run_together(
        *[lambda: shadow_records_ingest(documents=records)] * CALLERS
    )

    assert not [r for r in results if isinstance(r, Exception)]
    assert sum(result.created for result in results) == 200
    assert ShadowRecord.objects.count() == 200


def test_same_snapshot_at_once_is_stored_once(settings: Any) -> None:
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    document = {
        "schemaVersion": 1,
        "snapshotId": "required-main",
        "createdAt": "2026-03-06T12:00:00.000Z",
        "sourceRootDir": "ci",
        "benchmarkCount": 0,
        "benchmarks": [],
    }

    results = run_together(
        *[lambda: baseline_snapshot_store(document=document)] * CALLERS
    )

    assert Counter(result.outcome for result in results) == {
        "created": 1,
        "unchanged": CALLERS - 1,
    }
    assert BaselineSnapshot.objects.count() == 1
