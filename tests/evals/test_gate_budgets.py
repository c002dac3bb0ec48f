"""``manage.py benchmark_ci_gate --max-cost-increase X --max-p95-latency-ms N``:
budgets judged from the runs' spans, in the plain and the ``--stat`` gate,
failing closed on an unknown cost; without them the output is the plain
command line gate's, byte for byte."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals import cli
from tests.evals.usage_support import spans_for

pytestmark = pytest.mark.django_db

CASES = [f"s{i:02d}" for i in range(12)]


def run_doc(run_id: str) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": "pack",
        "status": "completed",
        "startedAt": "2026-03-06T10:00:00.000Z",
        "completedAt": "2026-03-06T10:02:00.000Z",
        "totalCases": len(CASES),
        "passedCases": len(CASES),
        "failedCases": 0,
        "caseResults": [{"caseId": c, "passed": True} for c in CASES],
    }


@pytest.fixture
def stores(tmp_path: Path) -> tuple[Path, Path]:
    roots = []
    for name, run_id in (("base", "run-base"), ("cand", "run-cand")):
        path = tmp_path / name / "runs" / f"{run_id}.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(run_doc(run_id)))
        roots.append(tmp_path / name)
    return roots[0], roots[1]


def gate(stores: tuple[Path, Path], *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    args = [
        "benchmark_ci_gate",
        "--base",
        str(stores[0]),
        "--candidate",
        str(stores[1]),
    ]
    try:
        call_command(*args, *extra, stdout=out, stderr=io.StringIO())
    except CommandError as error:
        return error.returncode, out.getvalue()
    return 0, out.getvalue()


def test_without_budgets_the_output_and_files_are_the_plain_gates(
    stores: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spans_for("run-base", {c: ("0.01", 100.0) for c in CASES})
    spans_for("run-cand", {c: ("0.05", 900.0) for c in CASES})
    code, out = gate(stores, "--json", str(tmp_path / "m.json"))
    plain = cli.main(
        [
            "--base",
            str(stores[0]),
            "--candidate",
            str(stores[1]),
            "--workers",
            "1",
            "--json",
            str(tmp_path / "p.json"),
        ]
    )
    assert (code, out) == (plain, capsys.readouterr().out)
    assert (tmp_path / "m.json").read_bytes() == (tmp_path / "p.json").read_bytes()


def test_a_cost_rise_beyond_the_budget_fails_the_gate(
    stores: tuple[Path, Path], tmp_path: Path
) -> None:
    spans_for("run-base", {c: ("0.01", 100.0) for c in CASES})
    spans_for("run-cand", {c: ("0.0125", 100.0) for c in CASES})
    code, out = gate(
        stores, "--max-cost-increase", "10%", "--json", str(tmp_path / "v.json")
    )
    assert code == 1
    line = "pack cost: $0.12 -> $0.15 (+25%; at most +10%)"
    assert f"- FAIL {line}\n" in out
    assert "- pack cost budget: $0.12 -> $0.15 (+25%; at most +10%)\n" in out
    document = json.loads((tmp_path / "v.json").read_text())
    assert document["passed"] is False
    assert document["budgets"]["checks"][0]["passed"] is False
    ok, out = gate(stores, "--max-cost-increase", "0.30")
    assert ok == 0
    assert "- ok pack cost: $0.12 -> $0.15 (+25%; at most +30%)\n" in out


def test_an_unpriced_call_fails_closed_with_the_reason(
    stores: tuple[Path, Path],
) -> None:
    spans_for("run-base", {c: ("0.01", 100.0) for c in CASES})
    spans_for("run-cand", {c: (None if c < "s03" else "0.01", 100.0) for c in CASES})
    code, out = gate(stores, "--max-cost-increase", "0.5")
    assert code == 1
    assert "- FAIL pack cost: cost unknown: candidate: 3 calls unpriced\n" in out


def test_the_p95_latency_budget(stores: tuple[Path, Path]) -> None:
    spans_for("run-base", {c: ("0.01", 100.0) for c in CASES})
    spans_for("run-cand", {c: ("0.01", 100.0 + 10 * i) for i, c in enumerate(CASES)})
    code, out = gate(stores, "--max-p95-latency-ms", "250")
    assert code == 0
    assert "- ok pack p95 latency: 204.5 ms (baseline 100 ms, at most 250 ms)\n" in out
    code, out = gate(stores, "--max-p95-latency-ms", "200")
    assert code == 1
    assert (
        "- FAIL pack p95 latency: 204.5 ms (baseline 100 ms, at most 200 ms)\n" in out
    )


def test_runs_without_spans_fail_an_asked_budget(stores: tuple[Path, Path]) -> None:
    code, out = gate(stores, "--max-p95-latency-ms", "1000")
    assert code == 1
    assert (
        "- FAIL pack p95 latency: p95 latency unknown: candidate: no model calls "
        "recorded\n"
    ) in out


def test_the_stat_gate_lists_and_applies_the_budgets(
    stores: tuple[Path, Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    spans_for("run-base", {c: ("0.01", 100.0) for c in CASES})
    spans_for("run-cand", {c: ("0.02", 100.0) for c in CASES})
    caplog.set_level("INFO", logger="evals")
    code, out = gate(
        stores,
        "--stat",
        "--max-cost-increase",
        "10%",
        "--json",
        str(tmp_path / "s.json"),
    )
    assert code == 1
    assert out.startswith("# Eval Statistical Gate Report\n\n- Passed: no\n")
    assert "## Budgets\n" in out
    assert "- FAIL pack cost: $0.12 -> $0.24 (+100%; at most +10%)\n" in out
    document = json.loads((tmp_path / "s.json").read_text())
    assert (document["mode"], document["passed"]) == ("stat", False)
    assert document["budgets"]["passed"] is False
    # The log line agrees with the reports: the failed budget fails it.
    lines = [r.getMessage() for r in caplog.records if "ci_gate" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].startswith("[Eval] ci_gate passed=false ")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-cost-increase", "lots", "not a fraction or a percent: 'lots'"),
        ("--max-p95-latency-ms", "-1", "must be more than 0: '-1'"),
    ],
)
def test_a_bad_budget_is_refused_before_anything_is_read(
    stores: tuple[Path, Path], option: str, value: str, message: str
) -> None:
    args = ["--base", str(stores[0]), "--candidate", str(stores[1]), option, value]
    with pytest.raises(CommandError, match=f"argument {option}: {message}"):
        call_command("benchmark_ci_gate", *args, stdout=io.StringIO())
