"""The seed-002 commands: benchmark_validate, benchmark_import, the baseline
snapshot and report, benchmark_ci_gate and benchmark_status."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals.core.store import store_json_bytes
from evals.examples import example_manifest
from evals.examples import example_run_summary as run_summary
from evals.examples import example_shadow_record as shadow
from evals.models import BaselineSnapshot, Benchmark, Run
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import benchmark_pack_create
from evals.services.pack_files import pack_file_contents
from evals.services.shadow_records import shadow_records_ingest

pytestmark = pytest.mark.django_db


def manifest(benchmark_id: str = "ama-memory", cases: int = 2, **extra: Any) -> dict:
    return example_manifest(benchmark_id, cases=cases, tags=None, **extra)


def run_command(*args: Any) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def failing(*args: Any) -> tuple[CommandError, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command(*args, stdout=out, stderr=err)
    return caught.value, out.getvalue(), err.getvalue()


def write(path: Path, document: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(store_json_bytes(document))
    return path


# --- benchmark_validate ---------------------------------------------------------


def test_validate_accepts_a_manifest_file(tmp_path: Path) -> None:
    path = write(tmp_path / "manifest.json", manifest())

    out, _ = run_command("benchmark_validate", str(path))

    assert (
        out == "valid benchmark pack: ama-memory (standard, 2 cases, 0 extra files)\n"
    )


def test_validate_accepts_a_pack_directory(tmp_path: Path) -> None:
    write(tmp_path / "pack" / "manifest.json", manifest())
    (tmp_path / "pack" / "data.txt").write_text("x")

    out, _ = run_command("benchmark_validate", str(tmp_path / "pack"))

    assert (
        out == "valid benchmark pack: ama-memory (standard, 2 cases, 1 extra files)\n"
    )


def test_validate_prints_every_problem_with_its_path(tmp_path: Path) -> None:
    document = manifest(schemaVersion=2, benchmarkType="other")
    document["cases"] = "none"
    path = write(tmp_path / "manifest.json", document)

    error, out, _ = failing("benchmark_validate", str(path))

    assert error.returncode == 1
    assert out.splitlines() == [
        f"invalid benchmark pack: {path} (3 problem(s))",
        "  $.benchmarkType: benchmarkType must be one of standard|memory-red-team",
        "  $.cases: cases must be an array",
        "  $.schemaVersion: schemaVersion must be 1",
    ]
    assert Benchmark.objects.count() == 0


def test_validate_needs_the_red_team_flag(tmp_path: Path) -> None:
    document = manifest(
        benchmarkType="memory-red-team", attackClass="a", targetSurface="b"
    )
    path = write(tmp_path / "manifest.json", document)

    _, out, _ = failing("benchmark_validate", str(path))

    assert out.splitlines()[1:] == [
        "  $.benchmarkType: memory-red-team benchmark packs require "
        "memoryRedTeamBenchEnabled"
    ]


def test_validate_missing_path_exits_2(tmp_path: Path) -> None:
    error, _, _ = failing("benchmark_validate", str(tmp_path / "nope.json"))

    assert error.returncode == 2
    assert str(error) == f"benchmark pack not found: {tmp_path / 'nope.json'}"


def test_validate_refuses_an_unsafe_archive(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../manifest.json", b"{}")
    path = tmp_path / "evil.zip"
    path.write_bytes(buffer.getvalue())

    error, _, _ = failing("benchmark_validate", str(path))

    assert error.returncode == 1
    assert str(error) == (
        "refused archive: evil.zip: member '../manifest.json' escapes the archive "
        "with '..'"
    )


# --- benchmark_import -----------------------------------------------------------


def test_import_stores_a_pack_with_its_files(tmp_path: Path) -> None:
    write(tmp_path / "pack" / "manifest.json", manifest())
    (tmp_path / "pack" / "cases").mkdir()
    (tmp_path / "pack" / "cases" / "a.txt").write_text("fixture")

    out, _ = run_command("benchmark_import", str(tmp_path / "pack"))

    assert out == "benchmark pack ama-memory created (2 cases, 1 extra files)\n"
    benchmark = Benchmark.objects.get()
    assert benchmark.manifest == manifest()
    assert pack_file_contents(benchmark=benchmark) == {"cases/a.txt": b"fixture"}


def test_import_refuses_to_replace_without_force(tmp_path: Path) -> None:
    path = write(tmp_path / "manifest.json", manifest())
    run_command("benchmark_import", str(path))
    again, _ = run_command("benchmark_import", str(path))
    write(path, manifest(cases=3))

    error, _, _ = failing("benchmark_import", str(path))
    forced, _ = run_command("benchmark_import", str(path), "--force")

    assert again == "benchmark pack ama-memory unchanged (2 cases, 0 extra files)\n"
    assert error.returncode == 1
    assert str(error) == (
        "benchmark pack already exists: ama-memory; rerun with --force to replace it"
    )
    assert forced == "benchmark pack ama-memory replaced (3 cases, 0 extra files)\n"
    assert Benchmark.objects.get().case_count == 3


def test_import_of_an_invalid_pack_writes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "manifest.json", manifest(title=""))

    error, out, _ = failing("benchmark_import", str(path))

    assert error.returncode == 1
    assert out.splitlines()[1:] == ["  $.title: title must be a non-empty string"]
    assert Benchmark.objects.count() == 0


# --- benchmark_baseline_snapshot -------------------------------------------------


def test_snapshot_command_needs_its_flag() -> None:
    error, _, _ = failing("benchmark_baseline_snapshot", "--snapshot-id", "main")

    assert str(error) == "benchmark baseline snapshots are disabled"
    assert BaselineSnapshot.objects.count() == 0


def test_snapshot_command_takes_the_latest_completed_runs(flags_on: Any) -> None:
    benchmark_pack_create(document=manifest())
    benchmark_run_record(document=run_summary("run-1", hour=9, passed=2))
    benchmark_run_record(document=run_summary("run-2", hour=11))

    out, _ = run_command(
        "benchmark_baseline_snapshot", "--snapshot-id", "main", "--notes", "n"
    )

    lines = out.splitlines()
    assert lines[0].startswith(
        "baseline snapshot main created: 1 benchmark(s), created "
    )
    assert lines[1:] == ["- ama-memory: run run-2, passRate 0.5"]
    assert BaselineSnapshot.objects.get().notes == "n"


def test_snapshot_command_refuses_an_unsafe_id(flags_on: Any) -> None:
    error, _, err = failing("benchmark_baseline_snapshot", "--snapshot-id", "..")

    assert err == "  $.snapshotId: snapshotId must be a safe path segment\n"
    assert BaselineSnapshot.objects.count() == 0
    assert error.returncode == 1


# --- benchmark_baseline_report ---------------------------------------------------


def test_report_command_needs_its_flag() -> None:
    error, _, _ = failing("benchmark_baseline_report", "--snapshot-id", "main")

    assert str(error) == "benchmark delta reporter is disabled"
    assert error.returncode == 2


@pytest.fixture
def baseline(flags_on: Any) -> None:
    benchmark_pack_create(document=manifest())
    benchmark_run_record(
        document=run_summary("run-1", hour=9, metrics={"trustViolationRate": 0.1})
    )
    call_command("benchmark_baseline_snapshot", "--snapshot-id", "required-main")


def test_report_command_exits_1_on_a_regression(baseline: None, tmp_path: Path) -> None:
    benchmark_run_record(
        document=run_summary(
            "run-2", hour=11, passed=0, metrics={"trustViolationRate": 0.2}
        )
    )

    error, out, _ = failing(
        "benchmark_baseline_report",
        "--snapshot-id",
        "required-main",
        "--json",
        str(tmp_path / "r.json"),
        "--markdown",
        str(tmp_path / "r.md"),
    )

    assert error.returncode == 1
    assert str(error) == "gate failed: 2 regression(s)"
    assert out == (tmp_path / "r.md").read_text()
    assert "## Regressions\n- ama-memory pass rate regressed (0.5 -> 0)\n" in out
    assert "- ama-memory trustViolationRate 0.1 -> 0.2\n" in out
    verdict = json.loads((tmp_path / "r.json").read_text())
    assert verdict["passed"] is False
    assert verdict["baselineSnapshotId"] == "required-main"


def test_report_command_exits_0_without_regression(baseline: None) -> None:
    benchmark_run_record(
        document=run_summary(
            "run-2", hour=11, passed=2, metrics={"trustViolationRate": 0.05}
        )
    )

    out, _ = run_command("benchmark_baseline_report", "--snapshot-id", "required-main")

    assert "- Passed: yes\n" in out
    assert (
        "## Improvements\n- ama-memory pass rate improved (0.5 -> 1)\n"
        "- ama-memory trustViolationRate 0.1 -> 0.05\n"
    ) in out


def test_report_command_unknown_snapshot_exits_2(flags_on: Any) -> None:
    error, _, _ = failing("benchmark_baseline_report", "--snapshot-id", "nope")

    assert error.returncode == 2
    assert str(error) == "benchmark baseline snapshot not found: nope"


# --- benchmark_ci_gate (two directories, no database reads) ---------------------


def store(root: Path, runs: list[dict], shadows: list[Any] = ()) -> Path:
    for document in runs:
        write(root / "runs" / f"{document['runId']}.json", document)
    for index, document in enumerate(shadows):
        write(root / "shadow" / "2026-03-06" / f"s{index}.json", document)
    return root


def test_ci_gate_passes_on_an_improvement(tmp_path: Path) -> None:
    base = store(tmp_path / "base", [run_summary("b1", passed=1)])
    candidate = store(tmp_path / "cand", [run_summary("c1", passed=2)])

    out, _ = run_command(
        "benchmark_ci_gate", "--base", str(base), "--candidate", str(candidate)
    )

    assert "- Passed: yes\n" in out
    assert "## Improvements\n- ama-memory pass rate improved (0.5 -> 1)\n" in out


def test_ci_gate_fails_on_regression_and_missing_benchmark(tmp_path: Path) -> None:
    base = store(
        tmp_path / "base",
        [run_summary("b1", passed=2), run_summary("b2", benchmark_id="gone")],
    )
    candidate = store(tmp_path / "cand", [run_summary("c1", passed=1)])

    error, out, _ = failing(
        "benchmark_ci_gate", "--base", str(base), "--candidate", str(candidate)
    )

    assert error.returncode == 1
    assert (
        "## Regressions\n"
        "- candidate is missing latest completed benchmark run for gone\n"
        "- ama-memory pass rate regressed (1 -> 0.5)\n"
    ) in out


def test_ci_gate_fails_on_a_broken_shadow_file(tmp_path: Path) -> None:
    base = store(tmp_path / "base", [run_summary("b1")])
    candidate = store(
        tmp_path / "cand", [run_summary("c1")], shadows=[{"schemaVersion": 1}]
    )

    error, out, _ = failing(
        "benchmark_ci_gate", "--base", str(base), "--candidate", str(candidate)
    )

    assert error.returncode == 1
    assert "- candidate store has 1 invalid shadow record(s)\n" in out


def test_ci_gate_bootstraps_the_snapshot_from_the_candidate(tmp_path: Path) -> None:
    base = store(tmp_path / "base", [run_summary("b1")])
    candidate = store(tmp_path / "cand", [run_summary("c1")])
    write(
        candidate / "baselines" / "required-main.json",
        {
            "schemaVersion": 1,
            "snapshotId": "required-main",
            "createdAt": "2026-03-06T12:00:00.000Z",
            "sourceRootDir": "ci",
            "benchmarkCount": 1,
            "benchmarks": [
                {"benchmarkId": "ama-memory", "runId": "x", "passRate": 0.5}
            ],
        },
    )

    out, _ = run_command(
        "benchmark_ci_gate",
        "--base",
        str(base),
        "--candidate",
        str(candidate),
        "--snapshot-id",
        "required-main",
        "--json",
        str(tmp_path / "v.json"),
    )

    assert "- Baseline snapshot: required-main (resolved from candidate)\n" in out
    assert json.loads((tmp_path / "v.json").read_text())["baselineResolvedFrom"] == (
        "candidate"
    )


def test_ci_gate_unusable_input_exits_2(tmp_path: Path) -> None:
    base = store(tmp_path / "base", [run_summary("b1")])

    missing_dir, _, _ = failing(
        "benchmark_ci_gate", "--base", str(base), "--candidate", str(tmp_path / "x")
    )
    no_snapshot, _, _ = failing(
        "benchmark_ci_gate",
        "--base",
        str(base),
        "--candidate",
        str(base),
        "--snapshot-id",
        "required-main",
    )

    assert missing_dir.returncode == 2
    assert str(missing_dir) == f"eval store directory not found: {tmp_path / 'x'}"
    assert no_snapshot.returncode == 2
    assert str(no_snapshot) == "benchmark baseline snapshot not found: required-main"


def test_ci_gate_with_worker_processes_decides_the_same(tmp_path: Path) -> None:
    base = store(tmp_path / "base", [run_summary("b1", passed=2)])
    candidate = store(tmp_path / "cand", [run_summary("c1", passed=1)])
    args = ("benchmark_ci_gate", "--base", str(base), "--candidate", str(candidate))

    one, out_one, _ = failing(*args)
    two, out_two, _ = failing(*args, "--workers", "2")

    assert (one.returncode, out_one) == (two.returncode, out_two)


# --- benchmark_status -------------------------------------------------------------


def test_status_of_an_empty_database() -> None:
    out, _ = run_command("benchmark_status")

    assert out.splitlines() == [
        "source: database",
        "eval harness: off, shadow mode: off, baseline snapshots: off, delta "
        "reporter: off, memory red-team bench: off",
        "benchmark packs: 0 valid, 0 invalid, 0 cases",
        "memory red-team packs: 0 (attack classes: none; target surfaces: none)",
        "runs: 0 (0 completed, 0 running, 0 failed, 0 partial), 0 invalid",
        "latest run: none",
        "shadow records: 0, 0 invalid",
        "latest shadow record: none",
        "baseline snapshots: 0, 0 invalid",
        "latest baseline: none",
    ]


def test_status_reports_the_database(flags_on: Any) -> None:
    benchmark_pack_create(document=manifest())
    benchmark_pack_create(
        document=manifest(
            "poison",
            cases=3,
            benchmarkType="memory-red-team",
            attackClass="provenance-spoofing",
            targetSurface="trust-zone-promotion",
        )
    )
    benchmark_run_record(document=run_summary("run-1", hour=9))
    benchmark_run_record(document=run_summary("run-2", hour=11, status="failed"))
    shadow_records_ingest(documents=[shadow("t1"), shadow("t2")])
    call_command("benchmark_baseline_snapshot", "--snapshot-id", "main")
    created = BaselineSnapshot.objects.get().document["createdAt"]

    out, _ = run_command("benchmark_status")

    assert out.splitlines() == [
        "source: database",
        "eval harness: on, shadow mode: on, baseline snapshots: on, delta "
        "reporter: on, memory red-team bench: on",
        "benchmark packs: 2 valid, 0 invalid, 5 cases",
        "memory red-team packs: 1 (attack classes: provenance-spoofing; target "
        "surfaces: trust-zone-promotion)",
        "runs: 2 (1 completed, 0 running, 1 failed, 0 partial), 0 invalid",
        "latest run: run-2 (ama-memory, failed, 1/2 passed, completed "
        "2026-03-06T11:02:00.000Z)",
        "shadow records: 2, 0 invalid",
        "latest shadow record: t2 at 2026-03-06T10:03:00.000Z (agent:main, full, "
        "hot_qmd, 2 memories, injected true)",
        "baseline snapshots: 1, 0 invalid",
        f"latest baseline: main (created {created}, 1 benchmarks)",
    ]


def test_status_lists_invalid_run_summaries() -> None:
    benchmark_pack_create(document=manifest())
    benchmark_run_record(document=run_summary("run-1"))
    Run.objects.update(summary={"schemaVersion": 1})

    out, _ = run_command("benchmark_status")

    assert "runs: 1 (0 completed, 0 running, 0 failed, 0 partial), 1 invalid" in out
    assert "invalid run summary: runs/run-1.json\n  $.benchmarkId: " in out


def test_status_of_a_store_directory_as_json(tmp_path: Path) -> None:
    root = store(tmp_path / "s", [run_summary("r1")], shadows=[{"schemaVersion": 1}])

    out, _ = run_command("benchmark_status", "--store", str(root), "--json")

    report = json.loads(out)
    assert report["rootDir"] == str(root)
    assert report["runs"]["total"] == 1
    assert report["shadows"]["invalid"] == 1
    assert report["invalidShadows"][0]["path"] == "shadow/2026-03-06/s0.json"


def test_status_of_a_missing_store_exits_2(tmp_path: Path) -> None:
    error, _, _ = failing("benchmark_status", "--store", str(tmp_path / "x"))

    assert error.returncode == 2
