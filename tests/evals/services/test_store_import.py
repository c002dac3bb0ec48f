"""eval_store_export / eval_store_import: the database as a seed-002 eval store."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals.core.store import store_json_bytes
from evals.models import (
    BaselineSnapshot,
    Benchmark,
    CaseResult,
    InvalidUpload,
    PackFile,
    Run,
    ShadowRecord,
)
from evals.services.baselines import baseline_snapshot_create
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import benchmark_pack_create
from evals.services.shadow_records import shadow_records_ingest

pytestmark = pytest.mark.django_db


def manifest(benchmark_id: str, **extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "benchmarkId": benchmark_id,
        "title": f"{benchmark_id} — ünïcode title",
        "tags": ["b", "a"],
        "cases": [
            {"id": "case-0", "prompt": "p0", "expectedSignals": ["objective-state"]},
            {"id": "case-1", "prompt": "p1"},
        ],
        **extra,
    }


def run_summary(run_id: str, benchmark_id: str, hour: int, **extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": f"2026-03-06T{hour:02d}:00:00.000Z",
        "completedAt": f"2026-03-06T{hour:02d}:02:00.123456789Z",
        "totalCases": 2,
        "passedCases": 1,
        "failedCases": 1,
        "metrics": {"zeta": 1, "actionOutcomeScore": 0.333333333333},
        **extra,
    }


def shadow(trace_id: str, day: str) -> dict:
    return {
        "schemaVersion": 1,
        "traceId": trace_id,
        "recordedAt": f"{day}T23:59:59+02:00",
        "sessionKey": "agent:main",
        "promptHash": "abc123",
        "promptLength": 42,
        "retrievalQueryHash": "def456",
        "retrievalQueryLength": 42.5,
        "recallMode": "graph_mode",
        "recallResultLimit": 4,
        "source": "cold_fallback",
        "recalledMemoryCount": 0,
        "injected": False,
        "contextChars": 0,
        "memoryIds": [],
        "durationMs": 1.25,
    }


def tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def flags_on(settings: Any) -> Any:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    return settings


@pytest.fixture
def filled(flags_on: Any) -> None:
    """All four kinds, an extra pack file, case results and a suite's run."""
    benchmark_pack_create(document=manifest("ama"), extra_files={"data/x.bin": b"\0"})
    benchmark_pack_create(
        document=manifest(
            "poison",
            benchmarkType="memory-red-team",
            attackClass="provenance-spoofing",
            targetSurface="trust-zone-promotion",
        )
    )
    Benchmark.objects.create(benchmark_id="smoke", kind="suite", title="smoke")
    benchmark_run_record(
        document=run_summary(
            "r1",
            "ama",
            9,
            caseResults=[
                {"caseId": "case-0", "passed": True, "score": 0.9},
                {"caseId": "case-1", "passed": False, "durationMs": 3},
            ],
            notes="first",
            gitRef="main@1",
        )
    )
    benchmark_run_record(document=run_summary("r2", "poison", 10))
    benchmark_run_record(document=run_summary("r3", "smoke", 11))
    shadow_records_ingest(
        documents=[shadow("t1", "2026-03-06"), shadow("t2", "2026-03-07")]
    )
    baseline_snapshot_create(snapshot_id="required-main", notes="main")


def wipe() -> None:
    for model in (CaseResult, Run, ShadowRecord, BaselineSnapshot, Benchmark):
        model.objects.all().delete()


def test_round_trip_db_export_import_export_is_identical(
    filled: None, tmp_path: Path
) -> None:
    call_command("eval_store_export", str(tmp_path / "one"), stdout=io.StringIO())
    wipe()
    out = io.StringIO()
    call_command("eval_store_import", str(tmp_path / "one"), stdout=out)
    call_command("eval_store_export", str(tmp_path / "two"), stdout=io.StringIO())

    first, second = tree(tmp_path / "one"), tree(tmp_path / "two")
    assert first == second
    assert sorted(first) == [
        "baselines/required-main.json",
        "benchmarks/ama/data/x.bin",
        "benchmarks/ama/manifest.json",
        "benchmarks/poison/manifest.json",
        "runs/r1.json",
        "runs/r2.json",
        "runs/r3.json",
        "shadow/2026-03-06/t1.json",
        "shadow/2026-03-07/t2.json",
    ]
    assert out.getvalue().splitlines() == [
        "created: 2 benchmark pack(s), 3 run(s), 2 shadow record(s), 1 baseline "
        "snapshot(s)",
        "replaced: 0 benchmark pack(s), 0 run(s), 0 shadow record(s), 0 baseline "
        "snapshot(s)",
        "unchanged: 0 benchmark pack(s), 0 run(s), 0 shadow record(s), 0 baseline "
        "snapshot(s)",
        "benchmarks known only from their runs: smoke",
    ]
    assert list(
        CaseResult.objects.order_by("case_id").values_list("case_id", "passed")
    ) == [("case-0", True), ("case-1", False)]
    assert Run.objects.get(run_id="r1").source == "import"


def test_export_writes_canonical_store_files(filled: None, tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("eval_store_export", str(tmp_path), stdout=out)

    run = run_summary(
        "r2",
        "poison",
        10,
    )
    assert (tmp_path / "runs" / "r2.json").read_bytes() == store_json_bytes(
        {**run, "metrics": {"actionOutcomeScore": 0.333333333333, "zeta": 1}}
    )
    assert out.getvalue() == (
        f"exported to {tmp_path}: 2 benchmark pack(s), 3 run(s), 2 shadow "
        "record(s), 1 baseline snapshot(s)\n"
    )


def test_export_defaults_to_eval_store_dir(
    filled: None, settings: Any, tmp_path: Path
) -> None:
    settings.EVAL_STORE_DIR = tmp_path / "store"

    call_command("eval_store_export", stdout=io.StringIO())

    assert (tmp_path / "store" / "runs" / "r1.json").is_file()


def test_import_twice_changes_nothing(filled: None, tmp_path: Path) -> None:
    call_command("eval_store_export", str(tmp_path), stdout=io.StringIO())
    out = io.StringIO()

    call_command("eval_store_import", str(tmp_path), stdout=out)

    assert out.getvalue().splitlines()[2] == (
        "unchanged: 2 benchmark pack(s), 3 run(s), 2 shadow record(s), 1 baseline "
        "snapshot(s)"
    )


def test_import_with_an_invalid_file_writes_nothing(
    flags_on: Any, tmp_path: Path
) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "good.json").write_bytes(
        store_json_bytes(run_summary("good", "ama", 9))
    )
    (tmp_path / "shadow" / "2026-03-06").mkdir(parents=True)
    (tmp_path / "shadow" / "2026-03-06" / "bad.json").write_text('{"schemaVersion":1}')
    err = io.StringIO()

    with pytest.raises(CommandError) as caught:
        call_command("eval_store_import", str(tmp_path), stderr=err)

    assert caught.value.returncode == 1
    assert str(caught.value) == (
        "nothing imported: 1 invalid file(s) (--skip-invalid imports the rest)"
    )
    assert err.getvalue().splitlines()[0] == "invalid: shadow/2026-03-06/bad.json"
    assert "  $.durationMs: durationMs must be a non-negative number" in (
        err.getvalue().splitlines()
    )
    assert Run.objects.count() == 0
    assert Benchmark.objects.count() == 0


def test_import_skip_invalid_imports_the_rest(flags_on: Any, tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "good.json").write_bytes(
        store_json_bytes(run_summary("good", "ama", 9))
    )
    (tmp_path / "runs" / "bad.json").write_text("[]")
    out = io.StringIO()

    call_command(
        "eval_store_import",
        str(tmp_path),
        "--skip-invalid",
        stdout=out,
        stderr=io.StringIO(),
    )

    assert list(Run.objects.values_list("run_id", flat=True)) == ["good"]
    assert out.getvalue().splitlines()[-1] == "skipped 1 invalid file(s)"
    # A run's unknown benchmark becomes a placeholder pack with no manifest.
    placeholder = Benchmark.objects.get()
    assert (placeholder.kind, placeholder.manifest) == ("pack", {})


def test_import_conflict_writes_nothing_unless_forced(
    filled: None, tmp_path: Path
) -> None:
    call_command("eval_store_export", str(tmp_path), stdout=io.StringIO())
    changed = run_summary("r2", "poison", 10, notes="edited")
    (tmp_path / "runs" / "r2.json").write_bytes(store_json_bytes(changed))
    (tmp_path / "runs" / "r9.json").write_bytes(
        store_json_bytes(run_summary("r9", "poison", 12))
    )
    err = io.StringIO()

    with pytest.raises(CommandError) as caught:
        call_command("eval_store_import", str(tmp_path), stderr=err)
    refused_runs = set(Run.objects.values_list("run_id", flat=True))
    call_command("eval_store_import", str(tmp_path), "--force", stdout=io.StringIO())

    assert str(caught.value) == (
        "1 document(s) differ from the stored ones (import with --force to replace "
        "them)"
    )
    assert err.getvalue() == (
        "conflict: runs/r2.json: r2 already exists with different content\n"
    )
    assert refused_runs == {"r1", "r2", "r3"}
    assert Run.objects.get(run_id="r2").notes == "edited"
    assert Run.objects.filter(run_id="r9").exists()


def test_import_a_missing_directory_exits_2(tmp_path: Path) -> None:
    with pytest.raises(CommandError) as caught:
        call_command("eval_store_import", str(tmp_path / "nope"))

    assert caught.value.returncode == 2


def test_import_respects_the_red_team_flag(tmp_path: Path) -> None:
    pack = tmp_path / "benchmarks" / "poison"
    pack.mkdir(parents=True)
    (pack / "manifest.json").write_bytes(
        store_json_bytes(
            manifest(
                "poison",
                benchmarkType="memory-red-team",
                attackClass="a",
                targetSurface="b",
            )
        )
    )

    with pytest.raises(CommandError):
        call_command("eval_store_import", str(tmp_path), stderr=io.StringIO())

    assert Benchmark.objects.count() == 0


def test_import_refuses_a_link_in_a_pack_folder(flags_on: Any, tmp_path: Path) -> None:
    pack = tmp_path / "benchmarks" / "ama"
    pack.mkdir(parents=True)
    (pack / "manifest.json").write_bytes(store_json_bytes(manifest("ama")))
    os.symlink("/etc/hostname", pack / "leak.txt")

    with pytest.raises(CommandError) as caught:
        call_command("eval_store_import", str(tmp_path))

    assert "is a link" in str(caught.value)
    assert Benchmark.objects.count() == 0


def test_import_places_a_suite_run_on_its_suite(
    flags_on: Any, settings: Any, tmp_path: Path
) -> None:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "smoke.jsonl").write_text("")
    settings.EVALS_SUITES_DIR = suites
    store = tmp_path / "store"
    (store / "runs").mkdir(parents=True)
    (store / "runs" / "r.json").write_bytes(
        store_json_bytes(run_summary("r", "smoke", 9))
    )

    call_command("eval_store_import", str(store), stdout=io.StringIO())

    benchmark = Benchmark.objects.get()
    assert (benchmark.kind, benchmark.suite_path) == (
        "suite",
        str(suites / "smoke.jsonl"),
    )


def test_uploading_the_pack_fills_a_placeholder(flags_on: Any, tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r.json").write_bytes(
        store_json_bytes(run_summary("r", "ama", 9))
    )
    call_command("eval_store_import", str(tmp_path), stdout=io.StringIO())

    result = benchmark_pack_create(document=manifest("ama"))

    assert result.outcome == "created"
    assert Benchmark.objects.get().case_count == 2
    assert InvalidUpload.objects.count() == 0


def test_failed_export_leaves_the_target_as_it_was(
    filled: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "store"
    call_command("eval_store_export", str(target), stdout=io.StringIO())
    (target / "notes.txt").write_text("mine")
    before = tree(target)
    Run.objects.filter(run_id="r1").update(
        summary={**Run.objects.get(run_id="r1").summary, "notes": "changed"}
    )

    def disk_full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    # Fails after packs and runs were written, before the baselines.
    monkeypatch.setattr("evals.core.store_writer.EvalStore.write_baseline", disk_full)
    with pytest.raises(CommandError) as caught:
        call_command("eval_store_export", str(target), stdout=io.StringIO())

    assert str(caught.value) == (
        f"export to {target} failed and wrote nothing: "
        "[Errno 28] No space left on device"
    )
    assert tree(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_export_skips_a_pack_whose_file_name_cannot_be_written(
    filled: None, tmp_path: Path
) -> None:
    long_name = "n" * 300 + ".txt"
    PackFile.objects.filter(benchmark__benchmark_id="ama").update(path=long_name)
    err = io.StringIO()

    call_command("eval_store_export", str(tmp_path), stdout=io.StringIO(), stderr=err)

    assert not (tmp_path / "benchmarks" / "ama").exists()
    assert (tmp_path / "benchmarks" / "poison" / "manifest.json").is_file()
    assert err.getvalue().splitlines()[0] == (
        "skipped (invalid in the database): benchmarks/ama/manifest.json"
    )
    assert "has a component longer than 255 bytes" in err.getvalue()


def test_round_trip_keeps_each_run_files_relative_path(
    flags_on: Any, tmp_path: Path
) -> None:
    source = tmp_path / "source"
    nested = source / "runs" / "2026-03-07"
    nested.mkdir(parents=True)
    (nested / "x.json").write_bytes(store_json_bytes(run_summary("x", "ama", 9)))
    (source / "runs" / "y.json").write_bytes(
        store_json_bytes(run_summary("y", "ama", 10))
    )

    call_command("eval_store_import", str(source), stdout=io.StringIO())
    call_command("eval_store_export", str(tmp_path / "out"), stdout=io.StringIO())

    exported = tree(tmp_path / "out")
    assert sorted(p for p in exported if p.startswith("runs/")) == [
        "runs/2026-03-07/x.json",
        "runs/y.json",
    ]
    assert json.loads(exported["runs/2026-03-07/x.json"]) == json.loads(
        (nested / "x.json").read_bytes()
    )
    assert Run.objects.get(run_id="x").store_path == "runs/2026-03-07/x.json"
    assert Run.objects.get(run_id="y").store_path == ""


def test_a_padded_benchmark_id_is_stored_and_exported_trimmed(
    flags_on: Any, tmp_path: Path
) -> None:
    benchmark_pack_create(document=manifest("  ama-memory  ", owner="evals team"))

    call_command("eval_store_export", str(tmp_path), stdout=io.StringIO())

    pack = Benchmark.objects.get()
    assert pack.benchmark_id == "ama-memory"
    written = tree(tmp_path)
    assert "benchmarks/ama-memory/manifest.json" in written
    # The unknown top-level field travels with the manifest.
    assert b'"owner": "evals team"' in written["benchmarks/ama-memory/manifest.json"]


def test_import_refuses_values_longer_than_their_columns(
    flags_on: Any, tmp_path: Path
) -> None:
    Benchmark.objects.create(benchmark_id="ama", kind="pack", title="ama")
    (tmp_path / "runs").mkdir()
    document = run_summary(
        "long",
        "ama",
        9,
        gitRef="g" * 201,
        caseResults=[{"caseId": "c" * 201, "passed": True}],
    )
    document["passedCases"], document["failedCases"], document["totalCases"] = 1, 0, 1
    (tmp_path / "runs" / "long.json").write_bytes(store_json_bytes(document))
    err = io.StringIO()

    with pytest.raises(CommandError):
        call_command("eval_store_import", str(tmp_path), stderr=err)

    assert err.getvalue().splitlines() == [
        "invalid: runs/long.json",
        "  $.caseResults[0].caseId: caseId must be at most 200 characters",
        "  $.gitRef: gitRef must be at most 200 characters",
    ]
    assert Run.objects.count() == 0
