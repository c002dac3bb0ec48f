"""REST API of the stored-baseline gate (the eval-store contract): /api/benchmarks/gate."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.examples import example_manifest as manifest
from evals.examples import example_run_summary as run_summary
from evals.models import (
    Benchmark,
    Run,
)
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db


@pytest.fixture
def baseline(staff_api: APIClient, flags_on: Any, pack: Benchmark) -> None:
    staff_api.post(
        "/api/benchmarks/packs", manifest("other-pack", cases=1), format="json"
    )
    for document in (
        run_summary("base-1", passed=1, metrics={"actionOutcomeScore": 0.5}, hour=9),
        run_summary("base-2", benchmark_id="other-pack", passed=1, total=1, hour=9),
    ):
        response = staff_api.post("/api/benchmarks/runs", document, format="json")
        assert response.status_code == 201
    response = staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "required-main"}, format="json"
    )
    assert response.status_code == 201


def test_gate_off_is_409(client: APIClient) -> None:
    response = client.get("/api/benchmarks/gate?snapshot=required-main")

    assert response.status_code == 409
    assert response.json()["error"]["message"] == "benchmark delta reporter is disabled"


def test_gate_needs_a_snapshot(client: APIClient, flags_on: Any) -> None:
    missing = client.get("/api/benchmarks/gate")
    unknown = client.get("/api/benchmarks/gate?snapshot=nope")
    bad_min = client.get("/api/benchmarks/gate?snapshot=nope&minCases=0")

    assert missing.status_code == 400
    assert error_fields(missing) == {"?snapshot": ["snapshot is required."]}
    assert unknown.status_code == 404
    assert unknown.json()["error"]["message"] == (
        "benchmark baseline snapshot not found: nope"
    )
    assert bad_min.status_code == 400


def test_gate_passes_on_an_improvement(
    client: APIClient, baseline: None, log_lines: Any
) -> None:
    client.post(
        "/api/benchmarks/runs",
        run_summary("cand-1", passed=2, metrics={"actionOutcomeScore": 0.75}),
        format="json",
    )
    client.post(
        "/api/benchmarks/runs",
        run_summary("cand-2", benchmark_id="other-pack", passed=1, total=1),
        format="json",
    )

    verdict = client.get("/api/benchmarks/gate?snapshot=required-main").json()

    assert verdict["passed"] is True
    assert verdict["regressions"] == []
    assert verdict["improvements"] == [
        "ama-memory pass rate improved (0.5 -> 1)",
        "ama-memory actionOutcomeScore 0.5 -> 0.75",
    ]
    assert verdict["baselineResolvedFrom"] == "base"
    assert [d["candidateRunId"] for d in verdict["deltas"]] == ["cand-1", "cand-2"]
    assert verdict["markdown"].startswith(
        "# Eval Baseline Delta Report\n\n- Passed: yes\n"
    )
    assert log_lines("[Eval] ci_gate") == [
        "[Eval] ci_gate passed=true compared=2 regressions=0 improvements=2 missing=0"
    ]


def test_gate_fails_on_a_regression_and_a_missing_benchmark(
    client: APIClient, baseline: None
) -> None:
    # The only completed run of other-pack goes away (pruned).
    Run.objects.filter(run_id="base-2").delete()
    client.post(
        "/api/benchmarks/runs",
        run_summary(
            "cand-1",
            passed=0,
            metrics={"actionOutcomeScore": 0.25},
            caseResults=[
                {"caseId": "case-0", "passed": False},
                {"caseId": "case-1", "passed": False},
            ],
        ),
        format="json",
    )

    verdict = client.get("/api/benchmarks/gate?snapshot=required-main").json()

    assert verdict["passed"] is False
    assert verdict["regressions"] == [
        "candidate is missing latest completed benchmark run for other-pack",
        "ama-memory pass rate regressed (0.5 -> 0)",
        "ama-memory actionOutcomeScore 0.5 -> 0.25",
    ]
    assert verdict["missingCandidateBenchmarks"] == ["other-pack"]
    assert "## Regressions\n- candidate is missing" in verdict["markdown"]


def test_gate_min_cases_makes_small_benchmarks_inconclusive(
    client: APIClient, baseline: None
) -> None:
    client.post("/api/benchmarks/runs", run_summary("cand-1", passed=0), format="json")
    client.post(
        "/api/benchmarks/runs",
        run_summary("cand-2", benchmark_id="other-pack", passed=1, total=1),
        format="json",
    )

    verdict = client.get(
        "/api/benchmarks/gate?snapshot=required-main&minCases=5"
    ).json()

    assert verdict["passed"] is True
    assert verdict["inconclusiveBenchmarks"] == ["ama-memory", "other-pack"]


def test_gate_counts_an_invalid_latest_summary_as_invalid_candidate(
    client: APIClient, baseline: None
) -> None:
    run = Run.objects.get(run_id="base-1")
    broken = copy.deepcopy(run.summary)
    broken["totalCases"] = "two"
    Run.objects.filter(run_id="base-2").update(summary=broken)

    verdict = client.get("/api/benchmarks/gate?snapshot=required-main").json()

    assert verdict["passed"] is False
    assert (
        verdict["regressions"][0] == "candidate store has 1 invalid run summary file(s)"
    )
