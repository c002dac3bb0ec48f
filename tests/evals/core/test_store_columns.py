"""Reading runs with their case results as columns (``load_store(
case_columns=True)``, evals.core.store_columns): the same runs as the
ordinary read, their case results as columns instead of built, in every
mode the gate reads runs; runs the fast path leaves to the full reader keep
their built case results."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from evals.core import store_reader
from evals.core.case_columns import case_columns_of
from evals.core.store import StoreContents
from evals.core.store_reader import load_store


def _run(run_id: str, minute: int, *, seed: int, scores: bool = True) -> dict[str, Any]:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for i in range(6):
        for epoch in range(3):
            ok = rng.random() < 0.7
            case: dict[str, Any] = {"caseId": f"s{i}#{epoch}", "passed": ok}
            if scores:
                case["score"] = rng.choice([0, 1, 0.25, float(ok)])
            if rng.random() < 0.3:
                case["notes"] = "n"
            cases.append(case)
    passed = sum(1 for case in cases if case["passed"])
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": "bench",
        "status": "completed",
        "startedAt": f"2026-03-06T10:{minute:02d}:00.000Z",
        "completedAt": f"2026-03-06T10:{minute:02d}:30.000Z",
        "totalCases": len(cases),
        "passedCases": passed,
        "failedCases": len(cases) - passed,
        "caseResults": cases,
    }


def _store(root: Path, documents: list[dict[str, Any]]) -> Path:
    (root / "runs").mkdir(parents=True)
    for document in documents:
        (root / "runs" / f"{document['runId']}.json").write_text(json.dumps(document))
    return root


def _assert_same_but_columns(columns: StoreContents, built: StoreContents) -> None:
    assert [s.path for s in columns.runs] == [s.path for s in built.runs]
    assert columns.valid_counts == built.valid_counts
    assert columns.invalid_runs == built.invalid_runs
    for read, full in zip(columns.runs, built.runs, strict=True):
        assert full.columns is None
        cases = full.item.case_results
        if cases is None or read.columns is None:
            assert read.item == full.item
            continue
        assert read.columns == case_columns_of(cases)
        assert read.item.case_results is None
        assert read.item == dataclasses.replace(full.item, case_results=None)


@pytest.mark.parametrize(
    "options",
    [
        {"latest_runs_only": True},
        {"run_file_names": {"r1.json", "r3.json"}},
        {},
    ],
    ids=["latest", "named", "all"],
)
def test_columns_carry_the_case_results_the_ordinary_read_builds(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    root = _store(
        tmp_path,
        [
            _run("r1", 1, seed=1),
            _run("r2", 5, seed=2, scores=False),
            _run("r3", 3, seed=3),
        ],
    )

    columns = load_store(root, case_columns=True, **options)
    built = load_store(root, **options)

    _assert_same_but_columns(columns, built)
    assert any(stored.columns is not None for stored in columns.runs)


def test_a_run_without_case_results_has_no_columns(tmp_path: Path) -> None:
    document = _run("r1", 1, seed=1)
    del document["caseResults"]
    root = _store(tmp_path, [document])

    read = load_store(root, case_columns=True, latest_runs_only=True)

    assert read.runs[0].columns is None
    assert read.runs[0].item == load_store(root, latest_runs_only=True).runs[0].item


@pytest.mark.parametrize(
    "options",
    [{"latest_runs_only": True}, {"run_file_names": {"r1.json"}}],
    ids=["latest", "named"],
)
def test_a_run_left_to_the_full_reader_keeps_its_built_case_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]
) -> None:
    root = _store(tmp_path, [_run("r1", 1, seed=1)])
    # The fast path proves nothing: the file is read in full.
    monkeypatch.setattr(store_reader, "read_stored_run", lambda data: None)

    read = load_store(root, case_columns=True, **options)

    assert read.runs[0].columns is None
    assert read.runs[0].item.case_results is not None
    assert read.runs[0].item == load_store(root, **options).runs[0].item
