"""``python -m evals.gate`` (the CLI in ``evals.cli``): exit codes 0/1/2 with no
Django settings at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_doc(run_id: str, benchmark_id: str, passed: int, total: int) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": "2026-03-06T10:00:00.000Z",
        "completedAt": "2026-03-06T10:02:00.000Z",
        "totalCases": total,
        "passedCases": passed,
        "failedCases": total - passed,
        "metrics": {"actionOutcomeScore": passed / total},
    }


def write(root: Path, relative: str, document: Any) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)


def gate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    return subprocess.run(
        [sys.executable, "-m", "evals.gate", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def stores(tmp_path: Path) -> tuple[Path, Path]:
    base, candidate = tmp_path / "base", tmp_path / "candidate"
    write(base, "runs/b1.json", run_doc("b1", "ama", 3, 4))
    write(base, "runs/b2.json", run_doc("b2", "obj", 2, 2))
    write(candidate, "runs/c1.json", run_doc("c1", "ama", 4, 4))
    write(candidate, "runs/c2.json", run_doc("c2", "obj", 2, 2))
    return base, candidate


def test_exit_0_when_the_gate_passes(tmp_path: Path, stores: tuple[Path, Path]) -> None:
    base, candidate = stores

    result = gate(
        "--base", base, "--candidate", candidate,
        "--json", tmp_path / "out" / "gate.json",
        "--markdown", tmp_path / "out" / "gate.md",
    )  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# Eval Baseline Delta Report\n\n- Passed: yes\n")
    assert "- ama pass rate improved (0.75 -> 1)\n" in result.stdout
    assert (tmp_path / "out" / "gate.md").read_text() == result.stdout
    report = json.loads((tmp_path / "out" / "gate.json").read_text())
    assert (report["passed"], report["comparedBenchmarks"]) == (True, 2)
    assert (
        "[Eval] ci_gate passed=true compared=2 regressions=0 improvements=2 missing=0"
        in (result.stderr)
    )


def test_exit_1_on_a_regression(tmp_path: Path, stores: tuple[Path, Path]) -> None:
    base, candidate = stores
    (candidate / "runs" / "c2.json").unlink()
    write(candidate, "runs/c1.json", run_doc("c1", "ama", 1, 4))

    result = gate(
        "--base", base, "--candidate", candidate, "--json", tmp_path / "g.json"
    )

    assert result.returncode == 1, result.stderr
    report = json.loads((tmp_path / "g.json").read_text())
    assert report["regressions"] == [
        "candidate is missing latest completed benchmark run for obj",
        "ama pass rate regressed (0.75 -> 0.25)",
        "ama actionOutcomeScore 0.75 -> 0.25",
    ]


def test_exit_1_on_a_broken_shadow_file(stores: tuple[Path, Path]) -> None:
    base, candidate = stores
    write(candidate, "shadow/2026-03-06/broken.json", '{"schemaVersion":1}')

    result = gate("--base", base, "--candidate", candidate)

    assert result.returncode == 1
    assert "- candidate store has 1 invalid shadow record(s)\n" in result.stdout


def test_exit_0_bootstrapping_from_the_candidate_snapshot(
    stores: tuple[Path, Path],
) -> None:
    base, candidate = stores
    snapshot = {
        "schemaVersion": 1,
        "snapshotId": "required-main",
        "createdAt": "2026-03-06T12:00:00.000Z",
        "sourceRootDir": "/ci",
        "benchmarkCount": 1,
        "benchmarks": [{"benchmarkId": "ama", "runId": "b1", "passRate": 0.75}],
    }
    write(candidate, "baselines/required-main.json", snapshot)

    result = gate(
        "--base", base, "--candidate", candidate, "--snapshot-id", "required-main"
    )

    assert result.returncode == 0, result.stderr
    assert (
        "- Baseline snapshot: required-main (resolved from candidate)\n"
        in result.stdout
    )


def test_exit_2_when_the_snapshot_is_nowhere(stores: tuple[Path, Path]) -> None:
    base, candidate = stores

    result = gate(
        "--base", base, "--candidate", candidate, "--snapshot-id", "required-main"
    )

    assert result.returncode == 2
    assert result.stderr.strip() == (
        "evals.gate: error: benchmark baseline snapshot not found: required-main"
    )
    assert result.stdout == ""


def test_exit_2_when_a_directory_is_missing(
    tmp_path: Path, stores: tuple[Path, Path]
) -> None:
    base, _ = stores

    result = gate("--base", base, "--candidate", tmp_path / "nope")

    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"evals.gate: error: eval store directory not found: {tmp_path / 'nope'}"
    )


# Slow by design: the gate runs in a child process to see its exit status.
def test_exit_2_when_a_report_cannot_be_written(
    tmp_path: Path, stores: tuple[Path, Path]
) -> None:
    base, candidate = stores
    (tmp_path / "blocker").write_text("a file, not a folder")

    result = gate(
        "--base",
        base,
        "--candidate",
        candidate,
        "--json",
        tmp_path / "blocker" / "g.json",
    )

    assert result.returncode == 2
    assert result.stderr.startswith("evals.gate: error: ")


@pytest.mark.parametrize(
    "extra", [["--min-cases", "0"], ["--metric-direction", "x=sideways"], ["--bogus"]]
)
def test_exit_2_on_bad_arguments(stores: tuple[Path, Path], extra: list[str]) -> None:
    base, candidate = stores

    result = gate("--base", base, "--candidate", candidate, *extra)

    assert result.returncode == 2
    assert result.stderr != ""


def test_min_cases_reports_inconclusive(
    stores: tuple[Path, Path], tmp_path: Path
) -> None:
    base, candidate = stores
    write(candidate, "runs/c1.json", run_doc("c1", "ama", 1, 4))

    result = gate(
        "--base", base, "--candidate", candidate, "--min-cases", "10",
        "--metric-direction", "actionOutcomeScore=neutral",
    )  # fmt: skip

    assert result.returncode == 0, result.stdout
    assert "## Inconclusive\n- ama: fewer than 10 cases (base 4, candidate 4)\n" in (
        result.stdout
    )


def test_gate_never_imports_django(stores: tuple[Path, Path]) -> None:
    base, candidate = stores
    code = (
        "import sys\n"
        "from evals.cli import main\n"
        f"rc = main(['--base', {str(base)!r}, '--candidate', {str(candidate)!r},"
        " '--workers', '1'])\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in "
        "('django', 'rest_framework', 'celery', 'evalsite')], 'framework imported'\n"
        "sys.exit(rc)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}

    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr


def test_snapshot_from_base_reads_only_the_runs_it_names(tmp_path: Path) -> None:
    base, candidate = tmp_path / "base", tmp_path / "candidate"
    named = {
        **run_doc("main-1", "ama", 1, 2),
        "caseResults": [
            {"caseId": "x", "passed": True},
            {"caseId": "y", "passed": False},
        ],
    }
    write(base, "runs/main-1.json", named)
    write(base, "runs/unrelated.json", "not even json")
    write(base, "shadow/2026-03-06/broken.json", "{}")
    snapshot = {
        "schemaVersion": 1,
        "snapshotId": "required-main",
        "createdAt": "2026-03-06T12:00:00.000Z",
        "sourceRootDir": "/ci",
        "benchmarkCount": 1,
        "benchmarks": [{"benchmarkId": "ama", "runId": "main-1", "passRate": 0.5}],
    }
    write(base, "baselines/required-main.json", snapshot)
    flipped = {
        **run_doc("c1", "ama", 1, 2),
        "caseResults": [
            {"caseId": "x", "passed": False},
            {"caseId": "y", "passed": True},
        ],
    }
    write(candidate, "runs/c1.json", flipped)

    result = gate(
        "--base", base, "--candidate", candidate, "--snapshot-id", "required-main"
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "(resolved from base)" in result.stdout
    assert "## Flipped Cases\n- ama x: pass -> fail\n- ama y: fail -> pass\n" in (
        result.stdout
    )
