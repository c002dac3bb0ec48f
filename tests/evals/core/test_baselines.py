"""Baseline snapshots: every rule and message, and building one from runs."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from core.errors import SchemaInvalid
from evals.core.baselines import snapshot_from_runs, validate_baseline_snapshot
from evals.core.runs import validate_run_summary

SNAPSHOT: dict[str, Any] = {
    "schemaVersion": 1,
    "snapshotId": "required-main",
    "createdAt": "2026-03-06T12:00:00.000Z",
    "sourceRootDir": "/srv/evals",
    "benchmarkCount": 2,
    "benchmarks": [
        {
            "benchmarkId": "ama-memory",
            "runId": "run-001",
            "completedAt": "2026-03-06T10:02:00.000Z",
            "gitRef": "abc123",
            "passRate": 0.75,
            "metrics": {"actionOutcomeScore": 0.81, "trustViolationRate": 0.02},
        },
        {"benchmarkId": "objective-state", "runId": "run-002", "passRate": 1},
    ],
    "notes": "main after release 1.4",
}


def with_changes(**changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(SNAPSHOT)
    for key, value in changes.items():
        if value is ...:
            document.pop(key, None)
        else:
            document[key] = value
    return document


def problems_of(document: Any) -> list[tuple[str, str]]:
    with pytest.raises(SchemaInvalid) as caught:
        validate_baseline_snapshot(document)
    return [(p.path, p.message) for p in caught.value.problems]


def run(run_id: str, benchmark_id: str, passed: int, total: int, **extra: Any) -> Any:
    document = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": extra.pop("status", "completed"),
        "startedAt": extra.pop("startedAt", "2026-03-06T10:00:00.000Z"),
        "totalCases": total,
        "passedCases": passed,
        "failedCases": total - passed,
        **extra,
    }
    return validate_run_summary(document)


def test_snapshot_is_valid_and_round_trips() -> None:
    snapshot = validate_baseline_snapshot(SNAPSHOT)

    assert snapshot.benchmark_count == 2
    assert snapshot.benchmarks[0].metrics == {
        "actionOutcomeScore": 0.81,
        "trustViolationRate": 0.02,
    }
    assert snapshot.to_wire() == SNAPSHOT


def test_benchmark_count_must_match_benchmarks_length() -> None:
    assert problems_of(with_changes(benchmarkCount=3)) == [
        ("$.benchmarkCount", "benchmarkCount must match benchmarks.length")
    ]


@pytest.mark.parametrize("count", [-1, "2", None, math.nan])
def test_benchmark_count_must_be_a_non_negative_number(count: Any) -> None:
    assert problems_of(with_changes(benchmarkCount=count)) == [
        ("$.benchmarkCount", "benchmarkCount must be a non-negative number")
    ]


@pytest.mark.parametrize("rate", [-0.1, 1.01, "0.5", None, math.inf])
def test_pass_rate_must_be_between_0_and_1(rate: Any) -> None:
    document = with_changes()
    document["benchmarks"][1]["passRate"] = rate

    assert problems_of(document) == [
        (
            "$.benchmarks[1].passRate",
            "benchmarks[1].passRate must be a number between 0 and 1",
        )
    ]


def test_benchmark_ids_must_be_unique() -> None:
    document = with_changes()
    document["benchmarks"][1]["benchmarkId"] = "ama-memory"

    assert problems_of(document) == [
        ("$.benchmarks[1].benchmarkId", "benchmarks[1].benchmarkId must be unique")
    ]


@pytest.mark.parametrize("snapshot_id", ["..", "a/b"])
def test_snapshot_id_must_be_a_safe_path_segment(snapshot_id: str) -> None:
    assert problems_of(with_changes(snapshotId=snapshot_id)) == [
        ("$.snapshotId", "snapshotId must be a safe path segment")
    ]


def test_every_problem_is_reported() -> None:
    document = with_changes(
        schemaVersion=0,
        createdAt="today",
        sourceRootDir=...,
        benchmarks=[
            {"benchmarkId": "", "runId": "r", "passRate": 2, "metrics": {"m": "x"}}
        ],
    )
    document["benchmarks"].append("x")

    assert problems_of(document) == [
        (
            "$.benchmarks[0].benchmarkId",
            "benchmarks[0].benchmarkId must be a non-empty string",
        ),
        (
            "$.benchmarks[0].metrics.m",
            "benchmarks[0].metrics.m must be a finite number",
        ),
        (
            "$.benchmarks[0].passRate",
            "benchmarks[0].passRate must be a number between 0 and 1",
        ),
        ("$.benchmarks[1]", "benchmarks[1] must be an object"),
        ("$.createdAt", "createdAt must be a valid ISO timestamp"),
        ("$.schemaVersion", "schemaVersion must be 1"),
        ("$.sourceRootDir", "sourceRootDir must be a non-empty string"),
    ]


def test_benchmarks_must_be_an_array() -> None:
    assert problems_of(with_changes(benchmarks={}, benchmarkCount=0)) == [
        ("$.benchmarks", "benchmarks must be an array")
    ]


def test_snapshot_from_runs_takes_the_latest_completed_run_per_benchmark() -> None:
    runs = [
        run("r1", "zeta", 1, 4, completedAt="2026-03-06T10:00:00Z"),
        run("r2", "zeta", 3, 4, completedAt="2026-03-06T11:00:00Z", gitRef="def"),
        run("r3", "zeta", 0, 4, status="failed", startedAt="2026-03-07T00:00:00Z"),
        run("r4", "alpha", 2, 3, metrics={"b": 2, "a": 1}),
    ]

    snapshot = snapshot_from_runs(
        runs,
        snapshot_id="nightly",
        created_at="2026-03-08T00:00:00Z",
        source_root_dir="/store",
        notes="n",
    )

    assert snapshot.to_wire() == {
        "schemaVersion": 1,
        "snapshotId": "nightly",
        "createdAt": "2026-03-08T00:00:00Z",
        "sourceRootDir": "/store",
        "benchmarkCount": 2,
        "benchmarks": [
            {
                "benchmarkId": "alpha",
                "runId": "r4",
                "passRate": 2 / 3,
                "totalCases": 3,
                "metrics": {"a": 1, "b": 2},
            },
            {
                "benchmarkId": "zeta",
                "runId": "r2",
                "completedAt": "2026-03-06T11:00:00Z",
                "gitRef": "def",
                "passRate": 0.75,
                "totalCases": 4,
            },
        ],
        "notes": "n",
    }


def test_snapshot_from_no_runs_is_empty() -> None:
    snapshot = snapshot_from_runs(
        [], snapshot_id="empty", created_at="2026-03-08T00:00:00Z", source_root_dir="/s"
    )

    assert (snapshot.benchmark_count, snapshot.benchmarks) == (0, ())


def test_snapshot_from_runs_refuses_an_unsafe_id() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        snapshot_from_runs(
            [],
            snapshot_id="../x",
            created_at="2026-03-08T00:00:00Z",
            source_root_dir="/s",
        )

    assert [p.message for p in caught.value.problems] == [
        "snapshotId must be a safe path segment"
    ]
