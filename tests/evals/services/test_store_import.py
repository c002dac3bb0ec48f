"""eval_store_import: an on-disk eval store into the database, and the round
trips through the export (evals.services.store_import)."""

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
    Benchmark,
    CaseResult,
    InvalidUpload,
    Run,
)
from evals.services.benchmarks import benchmark_pack_create
from tests.evals.services.store_support import (
    fill_all_kinds,
    manifest,
    run_summary,
    store_flags_on,
    tree,
    wipe,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def flags_on(settings: Any) -> Any:
    return store_flags_on(settings)


@pytest.fixture
def filled(flags_on: Any) -> None:
    fill_all_kinds()


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


def test_a_forced_import_writes_who_replaced_packs_and_baselines_to_the_audit_log(
    filled: None, tmp_path: Path
) -> None:
    from accounts.audit import command_line_actor
    from accounts.models import AuditEntry

    call_command("eval_store_export", str(tmp_path), stdout=io.StringIO())
    (manifest_path,) = [
        path
        for path in tmp_path.rglob("*.json")
        if json.loads(path.read_bytes()).get("benchmarkId") == "ama"
        and "cases" in json.loads(path.read_bytes())
    ]
    edited = json.loads(manifest_path.read_bytes())
    edited["title"] = "ama, edited"
    manifest_path.write_text(json.dumps(edited))
    (baseline_path,) = [
        path
        for path in tmp_path.rglob("*.json")
        if json.loads(path.read_bytes()).get("snapshotId") == "required-main"
    ]
    snapshot = json.loads(baseline_path.read_bytes())
    snapshot["notes"] = "edited"
    baseline_path.write_text(json.dumps(snapshot))
    before = AuditEntry.objects.count()

    with pytest.raises(CommandError):
        call_command("eval_store_import", str(tmp_path), stderr=io.StringIO())
    refused = AuditEntry.objects.count()
    call_command("eval_store_import", str(tmp_path), "--force", stdout=io.StringIO())

    assert refused == before
    entries = list(
        AuditEntry.objects.order_by("pk")[before:].values_list(
            "action", "target_type", "target_id", "actor_label", "user_agent"
        )
    )
    assert entries == [
        ("pack.replace", "pack", "ama", command_line_actor(), "command line"),
        (
            "baseline.replace",
            "baseline",
            "required-main",
            command_line_actor(),
            "command line",
        ),
    ]
    pack_entry = AuditEntry.objects.get(action="pack.replace", target_id="ama")
    assert pack_entry.details == {
        "why": "benchmark pack already exists: ama",
        "by": "eval_store_import --force",
    }


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
