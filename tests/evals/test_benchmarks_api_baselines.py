"""REST API of baseline snapshots (the eval-store contract): /api/benchmarks/baselines."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.examples import example_run_summary as run_summary
from evals.examples import example_snapshot as snapshot_document
from evals.models import (
    BaselineSnapshot,
    Benchmark,
)
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db


def test_snapshots_off_is_409(client: APIClient) -> None:
    for body in ({"snapshotId": "required-main"}, snapshot_document()):
        response = client.post("/api/benchmarks/baselines", body, format="json")

        assert response.status_code == 409
        assert response.json()["error"]["message"] == (
            "benchmark baseline snapshots are disabled"
        )
    assert BaselineSnapshot.objects.count() == 0


def test_snapshot_from_latest_runs(
    staff_api: APIClient, flags_on: Any, pack: Benchmark, log_lines: Any
) -> None:
    staff_api.post(
        "/api/benchmarks/runs",
        run_summary("run-1", hour=9, metrics={"actionOutcomeScore": 0.5}),
        format="json",
    )
    staff_api.post("/api/benchmarks/runs", run_summary("run-2", hour=11), format="json")
    staff_api.post(
        "/api/benchmarks/runs",
        run_summary("run-3", hour=12, status="failed"),
        format="json",
    )

    response = staff_api.post(
        "/api/benchmarks/baselines",
        {"snapshotId": "required-main", "notes": "main"},
        format="json",
    )

    assert response.status_code == 201
    document = response.json()["document"]
    assert document["benchmarks"] == [
        {
            "benchmarkId": "ama-memory",
            "runId": "run-2",
            "completedAt": "2026-03-06T11:02:00.000Z",
            "passRate": 0.5,
            "totalCases": 2,
        }
    ]
    assert document["notes"] == "main"
    assert document["sourceRootDir"] == "database"
    assert log_lines("[Eval] baseline") == [
        "[Eval] baseline_snapshot_saved snapshot_id=required-main benchmark_count=1 "
        "outcome=created"
    ]


def test_snapshot_from_latest_replaces_the_named_one(
    staff_api: APIClient, flags_on: Any, pack: Benchmark
) -> None:
    staff_api.post("/api/benchmarks/runs", run_summary("run-1", hour=9), format="json")
    staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "required-main"}, format="json"
    )
    staff_api.post("/api/benchmarks/runs", run_summary("run-2", hour=11), format="json")

    response = staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "required-main"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "replaced"
    row = BaselineSnapshot.objects.get()
    assert row.document["benchmarks"][0]["runId"] == "run-2"


def test_snapshot_id_must_be_safe(staff_api: APIClient, flags_on: Any) -> None:
    response = staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "a/b"}, format="json"
    )

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.snapshotId": ["snapshotId must be a safe path segment"]
    }


def test_snapshot_document_is_stored_idempotently(
    staff_api: APIClient, flags_on: Any
) -> None:
    first = staff_api.post(
        "/api/benchmarks/baselines", snapshot_document(), format="json"
    )
    again = staff_api.post(
        "/api/benchmarks/baselines", snapshot_document(), format="json"
    )
    other = staff_api.post(
        "/api/benchmarks/baselines", snapshot_document(notes="x"), format="json"
    )

    assert first.status_code == 201
    assert first.json()["document"] == snapshot_document()
    assert again.status_code == 200
    assert again.json()["outcome"] == "unchanged"
    assert other.status_code == 409
    assert BaselineSnapshot.objects.get().notes == ""


def test_invalid_snapshot_document_is_400(staff_api: APIClient, flags_on: Any) -> None:
    document = snapshot_document(benchmarkCount=2)
    document["benchmarks"][0]["passRate"] = 1.5

    response = staff_api.post("/api/benchmarks/baselines", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.benchmarkCount": ["benchmarkCount must match benchmarks.length"],
        "$.benchmarks[0].passRate": [
            "benchmarks[0].passRate must be a number between 0 and 1"
        ],
    }
    assert BaselineSnapshot.objects.count() == 0


def test_baseline_list_and_detail(staff_api: APIClient, flags_on: Any) -> None:
    staff_api.post("/api/benchmarks/baselines", snapshot_document(), format="json")

    listed = staff_api.get("/api/benchmarks/baselines").json()
    detail = staff_api.get("/api/benchmarks/baselines/required-main").json()
    missing = staff_api.get("/api/benchmarks/baselines/nope")

    assert listed["count"] == 1
    assert listed["results"][0]["snapshotId"] == "required-main"
    assert listed["results"][0]["benchmarkCount"] == 1
    assert detail["document"] == snapshot_document()
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == (
        "benchmark baseline snapshot not found: nope"
    )
