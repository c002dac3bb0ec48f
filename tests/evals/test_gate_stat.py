"""The gate that knows noise: ``--stat`` on ``python -m evals.gate`` (in
process through ``evals.cli.main``, and once as a child process) and on
``manage.py benchmark_ci_gate``. Without ``--stat`` nothing changes: the
plain gate's tests (test_gate_cli.py, core/test_gate.py) stay as they are,
and here the same stores give byte-identical plain output whatever
``--margin``/``--reducer`` say when ``--stat`` is absent."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals import cli

REPO = Path(__file__).resolve().parents[2]


def run_doc(
    run_id: str,
    outcomes: list[bool] | None,
    *,
    benchmark_id: str = "ama",
    ids: list[str] | None = None,
    scores: list[float] | None = None,
    passed: int | None = None,
    total: int | None = None,
    metrics: dict[str, float] | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": "2026-03-06T10:00:00.000Z",
        "completedAt": "2026-03-06T10:02:00.000Z",
    }
    if outcomes is not None:
        names = ids or [f"s{i:03d}" for i in range(len(outcomes))]
        cases = [
            {"caseId": c, "passed": ok} for c, ok in zip(names, outcomes, strict=True)
        ]
        for case, score in zip(cases, scores or [], strict=False):
            case["score"] = score
        doc["caseResults"] = cases
        passed, total = sum(outcomes), len(outcomes)
    assert passed is not None and total is not None
    doc.update(totalCases=total, passedCases=passed, failedCases=total - passed)
    if metrics:
        doc["metrics"] = metrics
    return doc


def stores(
    tmp_path: Path, base: list[dict[str, Any]], cand: list[dict[str, Any]]
) -> tuple[Path, Path]:
    roots = tmp_path / "base", tmp_path / "candidate"
    for root, docs in zip(roots, (base, cand), strict=True):
        for doc in docs:
            path = root / "runs" / f"{doc['runId']}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc))
    return roots


def gate(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = cli.main(["--workers", "1", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


SMALL_DROP = ([True] * 5 + [False], [True] * 4 + [False] * 2)
BIG_DROP = ([True] * 190 + [False] * 10, [False] * 70 + [True] * 120 + [False] * 10)


def test_a_small_drop_fails_the_plain_gate_and_passes_the_stat_gate_as_inconclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", SMALL_DROP[0])], [run_doc("c1", SMALL_DROP[1])]
    )

    plain_code, plain_out, _ = gate(capsys, "--base", base, "--candidate", cand)
    code, out, _ = gate(capsys, "--base", base, "--candidate", cand, "--stat")

    assert plain_code == 1
    assert "- ama pass rate regressed (0.8333 -> 0.6667)\n" in plain_out
    assert code == 0
    assert out.startswith("# Eval Statistical Gate Report\n\n- Passed: yes\n")
    assert "## Regressions\n- none\n" in out
    assert "## Inconclusive\n- ama passRate delta -0.1667 [" in out
    assert "(n=6, K=1, margin 0)" in out
    assert "## Warnings\n- ama passRate underpowered: MDE " in out
    assert ", McNemar b=1 c=0 p=1, p=1 (Holm 1): inconclusive\n" in out


def test_a_large_drop_fails_the_stat_gate_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", BIG_DROP[0])], [run_doc("c1", BIG_DROP[1])]
    )
    report = tmp_path / "out" / "gate.json"

    with caplog.at_level(logging.INFO, logger="evals.cli"):
        code, out, _ = gate(
            capsys, "--base", base, "--candidate", cand, "--stat", "--json", report
        )

    assert code == 1
    assert "- Passed: no\n" in out
    assert "## Regressions\n- ama passRate delta -0.35 [" in out
    assert "McNemar b=70 c=0 p=0, " in out
    document = json.loads(report.read_text())
    (comparison,) = document["benchmarks"][0]["comparisons"]
    assert (document["mode"], document["passed"]) == ("stat", False)
    assert (comparison["verdict"], comparison["n"], comparison["k"]) == (
        "regression",
        200,
        1,
    )
    assert comparison["mcnemar"]["b"] == 70
    assert len(document["benchmarks"][0]["flips"]) == 70
    assert (
        "[Eval] ci_gate passed=false compared=1 regressions=1 improvements=0 "
        "missing=0 mode=stat inconclusive=0 underpowered=0"
    ) in caplog.messages


def test_a_drop_inside_the_margin_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = [True] * 950 + [False] * 50
    after = [False] * 20 + [True] * 930 + [False] * 50
    base, cand = stores(tmp_path, [run_doc("b1", before)], [run_doc("c1", after)])

    strict = gate(capsys, "--base", base, "--candidate", cand, "--stat")
    lenient = gate(
        capsys, "--base", base, "--candidate", cand, "--stat", "--margin", "0.05"
    )

    assert strict[0] == 1
    assert lenient[0] == 0
    assert "- Margin: 0.05\n" in lenient[1]
    assert "(n=1000, K=1, margin 0.05): no change" not in lenient[1]
    assert "): no change\n" in lenient[1]


def test_repeats_are_paired_by_scenario_and_reported_as_k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [f"s{i}#{j}" for i in range(30) for j in range(4)]
    base_out = [(i + j) % 5 != 0 for i in range(30) for j in range(4)]
    cand_out = [(i + j) % 5 != 0 for i in range(30) for j in range(4)]
    base, cand = stores(
        tmp_path, [run_doc("b1", base_out, ids=ids)], [run_doc("c1", cand_out, ids=ids)]
    )

    code, out, _ = gate(
        capsys, "--base", base, "--candidate", cand, "--stat", "--reducer", "pass_at_2"
    )

    assert code == 0
    assert "- Reducer: pass_at_2\n" in out
    assert "n=30, K=4, MDE 0" in out
    assert "): no change\n" in out


def test_per_case_scores_are_judged_and_summary_metrics_listed_as_not_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcomes = [True] * 40
    base_scores = [0.9 - 0.01 * (i % 7) for i in range(40)]
    cand_scores = [s - 0.2 for s in base_scores]
    base, cand = stores(
        tmp_path,
        [
            run_doc(
                "b1", outcomes, scores=base_scores, metrics={"actionOutcomeScore": 0.9}
            )
        ],
        [
            run_doc(
                "c1", outcomes, scores=cand_scores, metrics={"actionOutcomeScore": 0.5}
            )
        ],
    )

    code, out, _ = gate(capsys, "--base", base, "--candidate", cand, "--stat")

    assert code == 1
    assert "- ama score delta -0.2 [-0.2, -0.2] (n=40, K=1, margin 0)\n" in out
    assert "## Not judged per case\n- ama actionOutcomeScore: no per-case values" in out
    assert "comparison(s)" in out and "across 2 comparison(s)" in out


def test_runs_without_case_results_are_compared_unpaired_from_their_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = stores(
        tmp_path,
        [run_doc("b1", None, passed=190, total=200)],
        [run_doc("c1", None, passed=120, total=200)],
    )

    code, out, _ = gate(capsys, "--base", base, "--candidate", cand, "--stat")

    assert code == 1
    assert "(newcombe), n=200, K=1" in out
    assert "- ama passRate: unpaired, from the summary counts (no caseResults)\n" in out


def test_scenarios_in_one_run_only_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = stores(
        tmp_path,
        [run_doc("b1", [True, True, False], ids=["a", "b", "c"])],
        [run_doc("c1", [True, False, True], ids=["b", "c", "d"])],
    )

    _, out, _ = gate(capsys, "--base", base, "--candidate", cand, "--stat")

    assert "## Scenarios in one run only\n- ama: base only a; candidate only d\n" in out


def test_a_missing_candidate_benchmark_still_fails_the_stat_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = stores(
        tmp_path,
        [run_doc("b1", [True] * 3), run_doc("b2", [True], benchmark_id="gone")],
        [run_doc("c1", [True] * 3)],
    )

    code, out, _ = gate(capsys, "--base", base, "--candidate", cand, "--stat")

    assert code == 1
    assert (
        "## Regressions\n- candidate is missing latest completed benchmark run for gone\n"
        in out
    )


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--margin", "abc"], "--margin"),
        (["--margin", "-0.1"], "--margin"),
        (["--margin", "nan"], "--margin"),
        (["--reducer", "median"], "--reducer"),
    ],
)
def test_bad_stat_arguments_exit_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], field: str
) -> None:
    base, cand = stores(tmp_path, [run_doc("b1", [True])], [run_doc("c1", [True])])

    with pytest.raises(SystemExit) as caught:
        gate(capsys, "--base", base, "--candidate", cand, "--stat", *args)

    assert caught.value.code == 2
    assert f"argument {field}: " in capsys.readouterr().err


def test_too_many_repeats_exit_2_naming_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [f"s#{j}" for j in range(101)]
    base, cand = stores(
        tmp_path,
        [run_doc("b1", [True] * 101, ids=ids)],
        [run_doc("c1", [True] * 101, ids=ids)],
    )

    code, out, err = gate(capsys, "--base", base, "--candidate", cand, "--stat")

    assert code == 2
    assert out == ""
    assert err == "evals.gate: error: repeats: a scenario has 101 epochs; at most 100\n"


def test_without_stat_the_stat_options_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", SMALL_DROP[0])], [run_doc("c1", SMALL_DROP[1])]
    )

    plain = gate(capsys, "--base", base, "--candidate", cand)
    with_options = gate(
        capsys,
        "--base",
        base,
        "--candidate",
        cand,
        "--margin",
        "0.5",
        "--reducer",
        "max",
    )

    assert with_options == plain
    assert plain[1].startswith("# Eval Baseline Delta Report\n")


def test_the_child_process_gate_takes_stat(tmp_path: Path) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", BIG_DROP[0])], [run_doc("c1", BIG_DROP[1])]
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}

    result = subprocess.run(
        [sys.executable, "-m", "evals.gate", "--base", str(base), "--candidate", str(cand), "--stat"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("# Eval Statistical Gate Report\n\n- Passed: no\n")
    assert "mode=stat" in result.stderr


def test_benchmark_ci_gate_takes_stat(tmp_path: Path) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", SMALL_DROP[0])], [run_doc("c1", SMALL_DROP[1])]
    )
    out = io.StringIO()

    call_command(
        "benchmark_ci_gate",
        "--base",
        str(base),
        "--candidate",
        str(cand),
        "--stat",
        stdout=out,
    )

    assert out.getvalue().startswith(
        "# Eval Statistical Gate Report\n\n- Passed: yes\n"
    )


def test_benchmark_ci_gate_stat_regression_is_exit_1(tmp_path: Path) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", BIG_DROP[0])], [run_doc("c1", BIG_DROP[1])]
    )

    with pytest.raises(CommandError) as caught:
        call_command(
            "benchmark_ci_gate", "--base", str(base), "--candidate", str(cand), "--stat",
            stdout=io.StringIO(),
        )  # fmt: skip

    assert caught.value.returncode == 1


def test_benchmark_ci_gate_refuses_a_margin_that_is_not_a_number(
    tmp_path: Path,
) -> None:
    base, cand = stores(tmp_path, [run_doc("b1", [True])], [run_doc("c1", [True])])

    with pytest.raises(CommandError, match="argument --margin: not a number: 'x'"):
        call_command(
            "benchmark_ci_gate", "--base", str(base), "--candidate", str(cand), "--stat",
            "--margin", "x", stdout=io.StringIO(),
        )  # fmt: skip


def test_a_snapshot_from_the_base_store_pairs_with_the_run_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", BIG_DROP[0])], [run_doc("c1", BIG_DROP[1])]
    )
    snapshot = {
        "schemaVersion": 1,
        "snapshotId": "required-main",
        "createdAt": "2026-03-06T12:00:00.000Z",
        "sourceRootDir": "ci",
        "benchmarkCount": 1,
        "benchmarks": [{"benchmarkId": "ama", "runId": "b1", "passRate": 0.95}],
    }
    (base / "baselines").mkdir()
    (base / "baselines" / "required-main.json").write_text(json.dumps(snapshot))

    code, out, _ = gate(
        capsys,
        "--base",
        base,
        "--candidate",
        cand,
        "--stat",
        "--snapshot-id",
        "required-main",
    )

    assert code == 1
    assert "- Baseline snapshot: required-main (resolved from base)\n" in out
    assert "McNemar b=70 c=0" in out


def test_one_shared_scenario_has_no_interval_and_the_json_says_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = stores(
        tmp_path,
        [run_doc("b1", [True], ids=["only"])],
        [run_doc("c1", [False], ids=["only"])],
    )
    report = tmp_path / "gate.json"

    code, out, _ = gate(
        capsys, "--base", base, "--candidate", cand, "--stat", "--json", report
    )

    assert code == 0
    assert "- ama passRate delta -1 [n/a, n/a] (n=1, K=1, margin 0)\n" in out
    assert "MDE n/a" in out
    (comparison,) = json.loads(report.read_text())["benchmarks"][0]["comparisons"]
    assert comparison["interval"] == [None, None]
    assert comparison["standardError"] is None
    assert (comparison["verdict"], comparison["underpowered"]) == ("inconclusive", True)


def test_benchmark_ci_gate_stat_reads_with_several_workers(tmp_path: Path) -> None:
    base, cand = stores(
        tmp_path, [run_doc("b1", SMALL_DROP[0])], [run_doc("c1", SMALL_DROP[1])]
    )
    out = io.StringIO()

    call_command(
        "benchmark_ci_gate", "--base", str(base), "--candidate", str(cand), "--stat",
        "--workers", "2", stdout=out,
    )  # fmt: skip

    assert "## Inconclusive\n- ama passRate delta -0.1667 [" in out.getvalue()


def test_the_plain_gate_does_not_import_the_numerics() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    probe = (
        "import sys, evals.cli; print('numpy' in sys.modules, 'scipy' in sys.modules)"
    )

    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip

    assert result.stdout == "False False\n"


def test_loading_the_app_registry_does_not_import_scipy() -> None:
    # Every manage.py command loads the registry; the overview sections the
    # apps register import the statistics, which must not pull scipy.stats.
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    env["DJANGO_SETTINGS_MODULE"] = "evalsite.settings_test"
    probe = "import sys, django; django.setup(); print('scipy.stats' in sys.modules)"

    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip

    assert result.stdout.splitlines()[-1] == "False"
