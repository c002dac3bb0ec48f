"""REST API of run summaries (the eval-store contract): /api/benchmarks/runs."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.examples import example_run_summary as run_summary
from evals.models import (
    Benchmark,
    CaseResult,
    InvalidUpload,
    Run,
)
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db


def test_run_with_case_results_is_recorded(
    client: APIClient, pack: Benchmark, owner: Any, log_lines: Any
) -> None:
    document = run_summary(
        "run-1",
        metrics={"actionOutcomeScore": 0.8, "customScore": 3},
        caseResults=[
            {"caseId": "case-0", "passed": True, "durationMs": 12},
            {"caseId": "case-1", "passed": False, "notes": "missed the owner"},
        ],
    )

    response = client.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["created"] is True
    assert body["summary"] == document
    assert body["passRate"] == 0.5
    assert body["source"] == "api"
    assert body["caseResults"] == [
        {"caseId": "case-0", "passed": True, "durationMs": 12},
        {"caseId": "case-1", "passed": False, "notes": "missed the owner"},
    ]
    run = Run.objects.get()
    assert run.created_by == owner
    assert run.metrics == {"actionOutcomeScore": 0.8, "customScore": 3}
    assert list(
        CaseResult.objects.values_list("case_id", "passed", "latency_ms", "error")
    ) == [("case-0", True, 12.0, ""), ("case-1", False, None, "missed the owner")]
    assert log_lines("[Eval] benchmark_run") == [
        "[Eval] benchmark_run_recorded run_id=run-1 benchmark_id=ama-memory "
        "status=completed source=api passed=1 total=2"
    ]


def test_same_run_again_is_a_no_op_200(client: APIClient, pack: Benchmark) -> None:
    client.post("/api/benchmarks/runs", run_summary("run-1"), format="json")

    again = client.post("/api/benchmarks/runs", run_summary("run-1"), format="json")

    assert again.status_code == 200
    assert again.json()["created"] is False
    assert Run.objects.count() == 1


def test_other_content_for_a_run_id_is_409(client: APIClient, pack: Benchmark) -> None:
    client.post("/api/benchmarks/runs", run_summary("run-1"), format="json")

    response = client.post(
        "/api/benchmarks/runs", run_summary("run-1", passed=2), format="json"
    )

    assert response.status_code == 409
    assert response.json()["error"]["message"] == (
        "run run-1 already exists with different content"
    )
    assert Run.objects.get().passed_cases == 1


def test_invalid_run_is_400_with_every_path_and_nothing_written(
    client: APIClient, pack: Benchmark
) -> None:
    document = run_summary("run-1")
    document.update(status="done", totalCases=-1, metrics={"x": "high"})
    del document["startedAt"]

    response = client.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.metrics.x": ["metrics.x must be a finite number"],
        "$.startedAt": ["startedAt must be a non-empty string"],
        "$.status": ["status must be one of running|completed|failed|partial"],
        "$.totalCases": ["totalCases must be a non-negative number"],
    }
    assert Run.objects.count() == 0
    assert InvalidUpload.objects.count() == 0


def test_run_of_unknown_benchmark_is_400(client: APIClient) -> None:
    response = client.post(
        "/api/benchmarks/runs", run_summary("run-1", benchmark_id="nope"), format="json"
    )

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.benchmarkId": [
            "benchmarkId must name a known benchmark (upload its pack first): nope"
        ]
    }


def test_case_results_must_agree_with_counts(
    client: APIClient, pack: Benchmark
) -> None:
    document = run_summary("run-1", caseResults=[{"caseId": "case-0", "passed": True}])

    response = client.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.caseResults": ["caseResults must agree with passedCases and failedCases"]
    }
    assert CaseResult.objects.count() == 0


def test_run_list_and_detail(client: APIClient, pack: Benchmark) -> None:
    client.post("/api/benchmarks/runs", run_summary("run-1", hour=9), format="json")
    client.post("/api/benchmarks/runs", run_summary("run-2", hour=11), format="json")

    listed = client.get("/api/benchmarks/runs?benchmark=ama-memory").json()
    detail = client.get("/api/benchmarks/runs/run-1").json()
    missing = client.get("/api/benchmarks/runs/nope")

    assert [r["runId"] for r in listed["results"]] == ["run-2", "run-1"]
    assert detail["summary"] == run_summary("run-1", hour=9)
    assert missing.status_code == 404
