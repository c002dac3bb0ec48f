"""The ``--stat`` gate reads the runs' case results as columns
(``load_gate_stores(case_columns=True)``): its verdict and reports are those
of the same stores read with built case results, in the base store's latest
runs and in snapshot mode, for runs with repeats and scores, runs without
scores and runs without case results."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from evals import cli
from evals.cli_stat import StatOptions
from evals.cli_stat_run import decide_stat
from evals.core.gate_stat_report import stat_verdict_to_json, stat_verdict_to_markdown
from evals.core.stats_input import parse_reducer


def _run(
    run_id: str, benchmark_id: str, rate: float, *, seed: int, kind: str
) -> dict[str, Any]:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for i in range(40):
        for epoch in range(3):
            ok = rng.random() < rate
            case: dict[str, Any] = {"caseId": f"s{i:02d}#{epoch}", "passed": ok}
            if kind == "scores":
                case["score"] = rng.choice([0, 1, 0.5, float(ok)])
            cases.append(case)
    passed = sum(1 for case in cases if case["passed"])
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": "2026-03-06T10:00:00.000Z",
        "completedAt": "2026-03-06T10:02:00.000Z",
        "totalCases": len(cases),
        "passedCases": passed,
        "failedCases": len(cases) - passed,
    }
    if kind != "counts":
        document["caseResults"] = cases
    return document


def _stores(tmp_path: Path) -> tuple[Path, Path]:
    base, candidate = tmp_path / "base", tmp_path / "candidate"
    for root, prefix, rate, seed in ((base, "b", 0.8, 1), (candidate, "c", 0.7, 2)):
        (root / "runs").mkdir(parents=True)
        for index, kind in enumerate(("scores", "outcomes", "counts")):
            run_id = f"{prefix}{index}"
            document = _run(run_id, f"bench-{kind}", rate, seed=seed + index, kind=kind)
            (root / "runs" / f"{run_id}.json").write_text(json.dumps(document))
    snapshot = {
        "schemaVersion": 1,
        "snapshotId": "required-main",
        "createdAt": "2026-03-06T12:00:00.000Z",
        "sourceRootDir": "ci",
        "benchmarkCount": 2,
        "benchmarks": [
            {"benchmarkId": "bench-outcomes", "runId": "b1", "passRate": 0.8},
            {"benchmarkId": "bench-scores", "runId": "b0", "passRate": 0.8},
        ],
    }
    (base / "baselines").mkdir()
    (base / "baselines" / "required-main.json").write_text(json.dumps(snapshot))
    return base, candidate


def _reports(request: cli.GateRequest, options: StatOptions, columns: bool) -> str:
    base, candidate = cli.load_gate_stores(request, None, case_columns=columns)
    verdict = decide_stat(
        base,
        candidate,
        options,
        snapshot_id=request.snapshot_id,
        min_cases=None,
        overrides=None,
    )
    return json.dumps(stat_verdict_to_json(verdict)) + stat_verdict_to_markdown(verdict)


@pytest.mark.parametrize("snapshot_id", [None, "required-main"])
@pytest.mark.parametrize("reducer", ["mean", "pass_at_2"])
def test_reading_columns_gives_the_reports_of_built_case_results(
    tmp_path: Path, snapshot_id: str | None, reducer: str
) -> None:
    base, candidate = _stores(tmp_path)
    request = cli.GateRequest(base=base, candidate=candidate, snapshot_id=snapshot_id)
    options = StatOptions(reducer=parse_reducer(reducer))

    with_columns = _reports(request, options, columns=True)

    assert with_columns == _reports(request, options, columns=False)
    assert "bench-scores score" in with_columns
    read, _ = cli.load_gate_stores(request, None, case_columns=True)
    assert any(stored.columns is not None for stored in read.runs)
