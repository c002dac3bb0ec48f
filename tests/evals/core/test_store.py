"""The on-disk eval store: layout, canonical writes, loading, status, snapshots."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from core.errors import Conflict, SchemaInvalid
from evals.core import format_rules, store_reader
from evals.core import store as store_module
from evals.core.archive import UnsafeArchive
from evals.core.baselines import validate_baseline_snapshot
from evals.core.format_rules import parse_json_document
from evals.core.packs import validate_manifest
from evals.core.runs import validate_run_summary
from evals.core.shadow import validate_shadow_record
from evals.core.store import HarnessFlags, StoreKind, StoreUnreadable, store_json_bytes
from evals.core.store_reader import load_store
from evals.core.store_status import snapshot_from_latest, status_report
from evals.core.store_writer import EvalStore

MANIFEST: dict[str, Any] = {
    "schemaVersion": 1,
    "benchmarkId": "ama-memory",
    "title": "AMA-style agent memory harness",
    "tags": ["trajectory", "objective-state"],
    "sourceLinks": ["https://arxiv.org/abs/2602.22769"],
    "cases": [
        {"id": "case-1", "prompt": "Resume.", "expectedSignals": ["objective-state"]}
    ],
}
RED_TEAM: dict[str, Any] = {
    "schemaVersion": 1,
    "benchmarkId": "poisoning",
    "benchmarkType": "memory-red-team",
    "title": "Corroboration attacks",
    "attackClass": "provenance-spoofing",
    "targetSurface": "trust-zone-promotion",
    "cases": [{"id": "a", "prompt": "p"}, {"id": "b", "prompt": "q"}],
}
RUN: dict[str, Any] = {
    "schemaVersion": 1,
    "runId": "run-001",
    "benchmarkId": "ama-memory",
    "status": "completed",
    "startedAt": "2026-03-06T10:00:00.000Z",
    "completedAt": "2026-03-06T10:02:00.000Z",
    "totalCases": 12,
    "passedCases": 9,
    "failedCases": 3,
    "metrics": {"objectiveStateCoverage": 0.67, "actionOutcomeScore": 0.81},
}
SHADOW: dict[str, Any] = {
    "schemaVersion": 1,
    "traceId": "3f3ec9f5b356c1f2",
    "recordedAt": "2026-03-06T10:03:00.000Z",
    "sessionKey": "agent:main",
    "promptHash": "abc123",
    "promptLength": 42,
    "retrievalQueryHash": "def456",
    "retrievalQueryLength": 42,
    "recallMode": "full",
    "recallResultLimit": 4,
    "source": "hot_qmd",
    "recalledMemoryCount": 2,
    "injected": True,
    "contextChars": 240,
    "memoryIds": ["mem-1", "mem-2"],
    "durationMs": 22,
}
SNAPSHOT: dict[str, Any] = {
    "schemaVersion": 1,
    "snapshotId": "required-main",
    "createdAt": "2026-03-06T12:00:00.000Z",
    "sourceRootDir": "/srv/evals",
    "benchmarkCount": 1,
    "benchmarks": [{"benchmarkId": "ama-memory", "runId": "run-001", "passRate": 0.75}],
}


def fill(root: Path) -> EvalStore:
    store = EvalStore(root)
    store.write_pack(validate_manifest(MANIFEST), {"fixtures/trace.txt": b"trace"})
    store.write_run(validate_run_summary(RUN))
    store.write_shadow(validate_shadow_record(SHADOW))
    store.write_baseline(validate_baseline_snapshot(SNAPSHOT))
    return store


def test_writes_follow_the_seed_layout(tmp_path: Path) -> None:
    fill(tmp_path)

    files = sorted(
        p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()
    )

    assert files == [
        "baselines/required-main.json",
        "benchmarks/ama-memory/fixtures/trace.txt",
        "benchmarks/ama-memory/manifest.json",
        "runs/run-001.json",
        "shadow/2026-03-06/3f3ec9f5b356c1f2.json",
    ]


def test_four_kinds_round_trip_through_write_and_load(tmp_path: Path) -> None:
    fill(tmp_path)

    contents = load_store(tmp_path)

    assert [s.item.to_wire() for s in contents.manifests] == [MANIFEST]
    assert [s.item.to_wire() for s in contents.runs] == [RUN]
    assert [s.item.to_wire() for s in contents.shadows] == [SHADOW]
    assert [s.item.to_wire() for s in contents.baselines] == [SNAPSHOT]
    assert contents.invalid_counts.total == 0


def test_writes_are_canonical_and_stable(tmp_path: Path) -> None:
    fill(tmp_path / "one")
    for kind in (load_store(tmp_path / "one"),):
        second = EvalStore(tmp_path / "two")
        second.write_pack(kind.manifests[0].item, {"fixtures/trace.txt": b"trace"})
        second.write_run(kind.runs[0].item)
        second.write_shadow(kind.shadows[0].item)
        second.write_baseline(kind.baselines[0].item)

    for relative in (
        "benchmarks/ama-memory/manifest.json",
        "runs/run-001.json",
        "shadow/2026-03-06/3f3ec9f5b356c1f2.json",
        "baselines/required-main.json",
    ):
        assert (tmp_path / "one" / relative).read_bytes() == (
            tmp_path / "two" / relative
        ).read_bytes()


def test_json_format_is_two_space_indent_with_trailing_newline() -> None:
    run = validate_run_summary(RUN)

    text = store_json_bytes(run.to_wire()).decode()

    assert text.endswith("}\n")
    assert text.startswith('{\n  "schemaVersion": 1,\n  "runId": "run-001",\n')
    # metric keys are sorted on write whatever order they came in
    assert text.index("actionOutcomeScore") < text.index("objectiveStateCoverage")


def test_non_ascii_is_kept_as_is(tmp_path: Path) -> None:
    manifest = validate_manifest({**MANIFEST, "title": "Mémoire — 記憶"})

    EvalStore(tmp_path).write_pack(manifest)

    assert "Mémoire — 記憶" in (
        tmp_path / "benchmarks/ama-memory/manifest.json"
    ).read_text("utf-8")


def test_manifests_are_found_recursively(tmp_path: Path) -> None:
    nested = tmp_path / "benchmarks" / "suites" / "red" / "manifest.json"
    nested.parent.mkdir(parents=True)
    nested.write_text(json.dumps(RED_TEAM))

    contents = load_store(tmp_path)

    assert [(s.path, s.item.benchmark_id) for s in contents.manifests] == [
        ("benchmarks/suites/red/manifest.json", "poisoning")
    ]


def test_runs_are_found_in_subfolders(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "2026" / "03" / "run-001.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(RUN))

    assert [s.path for s in load_store(tmp_path).runs] == ["runs/2026/03/run-001.json"]


def test_red_team_manifests_are_invalid_when_the_flag_is_off(tmp_path: Path) -> None:
    path = tmp_path / "benchmarks" / "poisoning" / "manifest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(RED_TEAM))

    contents = load_store(tmp_path, memory_red_team_enabled=False)

    assert [
        (i.path, [p.message for p in i.problems]) for i in contents.invalid_manifests
    ] == [
        (
            "benchmarks/poisoning/manifest.json",
            ["memory-red-team benchmark packs require memoryRedTeamBenchEnabled"],
        )
    ]


def test_invalid_files_are_reported_with_path_and_every_problem(tmp_path: Path) -> None:
    fill(tmp_path)
    (tmp_path / "shadow" / "2026-03-06" / "broken.json").write_text(
        '{"schemaVersion":1}'
    )
    (tmp_path / "runs" / "bad.json").write_text("{not json")
    (tmp_path / "baselines" / "wrong.json").write_text(
        json.dumps({**SNAPSHOT, "benchmarkCount": 5})
    )

    contents = load_store(tmp_path)

    assert len(contents.shadows) == 1
    [broken] = contents.invalid_shadows
    assert broken.path == "shadow/2026-03-06/broken.json"
    assert len(broken.problems) == 15
    [bad] = contents.invalid_runs
    assert (bad.path, bad.problems[0].code) == ("runs/bad.json", "invalid_json")
    [wrong] = contents.invalid_baselines
    assert [p.message for p in wrong.problems] == [
        "benchmarkCount must match benchmarks.length"
    ]
    assert contents.invalid_counts.to_wire() == {
        "benchmarks": 0,
        "runs": 1,
        "shadows": 1,
        "baselines": 1,
    }


def test_links_are_reported_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(RUN))
    (tmp_path / "store" / "runs").mkdir(parents=True)
    os.symlink(outside, tmp_path / "store" / "runs" / "run-001.json")

    contents = load_store(tmp_path / "store")

    assert contents.runs == ()
    assert [(i.path, i.problems[0].code) for i in contents.invalid_runs] == [
        ("runs/run-001.json", "link")
    ]


def test_temporary_files_are_ignored(tmp_path: Path) -> None:
    fill(tmp_path)
    (tmp_path / "runs" / f".run-002.json{store_module.TMP_MARKER}").write_text("{")

    assert load_store(tmp_path).invalid_counts.total == 0


def test_missing_kind_folders_are_empty(tmp_path: Path) -> None:
    contents = load_store(tmp_path)

    assert (
        contents.manifests,
        contents.runs,
        contents.shadows,
        contents.baselines,
    ) == (
        (),
        (),
        (),
        (),
    )


def test_missing_root_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(StoreUnreadable) as caught:
        load_store(tmp_path / "nope")

    assert (
        caught.value.message == f"eval store directory not found: {tmp_path / 'nope'}"
    )


def test_a_file_as_root_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")

    with pytest.raises(StoreUnreadable):
        load_store(tmp_path / "file")


def test_load_only_some_kinds(tmp_path: Path) -> None:
    fill(tmp_path)

    contents = load_store(tmp_path, kinds={StoreKind.BASELINES})

    assert (len(contents.baselines), contents.runs, contents.manifests) == (1, (), ())
    assert contents.kinds == frozenset({StoreKind.BASELINES})


def test_executor_gives_the_same_contents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EvalStore(tmp_path)
    for index in range(7):
        store.write_run(validate_run_summary({**RUN, "runId": f"run-{index}"}))
    (tmp_path / "runs" / "bad.json").write_text("[]")
    monkeypatch.setattr(store_reader, "_CHUNK", 2)

    sequential = load_store(tmp_path)
    with ThreadPoolExecutor(max_workers=3) as executor:
        parallel = load_store(tmp_path, executor=executor)

    assert parallel == sequential
    assert [s.path for s in parallel.runs] == [f"runs/run-{i}.json" for i in range(7)]


# --- packs --------------------------------------------------------------------


def test_existing_pack_is_replaced_only_with_force(tmp_path: Path) -> None:
    store = fill(tmp_path)
    renamed = validate_manifest({**MANIFEST, "title": "New title"})

    with pytest.raises(Conflict) as caught:
        store.write_pack(renamed, {})

    assert caught.value.message == (
        f"benchmark pack already exists at {tmp_path / 'benchmarks' / 'ama-memory'}; "
        "rerun with --force to replace it"
    )
    assert load_store(tmp_path).manifests[0].item.title == MANIFEST["title"]


def test_forced_pack_replaces_the_whole_folder(tmp_path: Path) -> None:
    store = fill(tmp_path)
    renamed = validate_manifest({**MANIFEST, "title": "New title"})

    result = store.write_pack(renamed, {"other.txt": b"o"}, force=True)

    assert result.overwritten
    files = sorted(p.name for p in (tmp_path / "benchmarks").rglob("*"))
    assert files == ["ama-memory", "manifest.json", "other.txt"]
    assert load_store(tmp_path).manifests[0].item.title == "New title"


@pytest.mark.parametrize("name", ["../escape.txt", "/abs.txt", "manifest.json"])
def test_pack_extra_files_must_stay_inside(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsafeArchive):
        EvalStore(tmp_path).write_pack(validate_manifest(MANIFEST), {name: b"x"})

    assert not (tmp_path / "benchmarks" / "ama-memory").exists()
    assert not (tmp_path / "escape.txt").exists()


def test_unsafe_ids_are_never_turned_into_paths(tmp_path: Path) -> None:
    with pytest.raises(SchemaInvalid):
        EvalStore(tmp_path).run_path("../x")


# --- status and snapshots -----------------------------------------------------


def test_status_report_of_a_store(tmp_path: Path) -> None:
    store = fill(tmp_path)
    store.write_pack(validate_manifest(RED_TEAM, memory_red_team_enabled=True))
    running = {**RUN, "runId": "run-002", "status": "running"}
    running["startedAt"] = "2026-03-06T11:00:00Z"
    del running["completedAt"]
    store.write_run(validate_run_summary(running))
    store.write_run(
        validate_run_summary(
            {**RUN, "runId": "run-000", "completedAt": "2026-03-05T10:00:00Z"}
        )
    )
    (tmp_path / "shadow" / "2026-03-07").mkdir()
    (tmp_path / "shadow" / "2026-03-07" / "x.json").write_text('{"schemaVersion":1}')
    flags = HarnessFlags(eval_harness_enabled=True, baseline_snapshots_enabled=True)

    report = status_report(load_store(tmp_path), flags)

    assert report["benchmarks"] == {
        "total": 2,
        "valid": 2,
        "invalid": 0,
        "redTeam": 1,
        "totalCases": 3,
        "attackClasses": ["provenance-spoofing"],
        "targetSurfaces": ["trust-zone-promotion"],
        "tags": ["objective-state", "trajectory"],
        "sourceLinks": ["https://arxiv.org/abs/2602.22769"],
    }
    assert report["runs"] == {
        "total": 3,
        "invalid": 0,
        "running": 1,
        "completed": 2,
        "failed": 0,
        "partial": 0,
        "latestRunId": "run-002",
        "latestBenchmarkId": "ama-memory",
        "latestCompletedAt": None,
    }
    assert report["shadows"] == {
        "total": 2,
        "invalid": 1,
        "latestTraceId": "3f3ec9f5b356c1f2",
        "latestRecordedAt": "2026-03-06T10:03:00.000Z",
        "latestSessionKey": "agent:main",
    }
    assert report["baselines"] == {
        "enabled": True,
        "total": 1,
        "invalid": 0,
        "latestSnapshotId": "required-main",
        "latestCreatedAt": "2026-03-06T12:00:00.000Z",
        "latestBenchmarkCount": 1,
    }
    assert (report["enabled"], report["shadowModeEnabled"]) == (True, False)
    assert report["latestShadow"] == SHADOW
    assert report["latestBaseline"] == SNAPSHOT
    assert report["latestRun"]["runId"] == "run-002"
    assert [i["path"] for i in report["invalidShadows"]] == ["shadow/2026-03-07/x.json"]
    json.dumps(report)


def test_status_report_of_an_empty_store(tmp_path: Path) -> None:
    report = status_report(load_store(tmp_path), HarnessFlags())

    assert report["runs"]["latestRunId"] is None
    assert report["latestRun"] is None
    assert report["benchmarks"]["total"] == 0
    assert (report["enabled"], report["baselines"]["enabled"]) == (False, False)


def test_snapshot_from_latest_uses_latest_completed_runs(tmp_path: Path) -> None:
    store = fill(tmp_path)
    store.write_run(
        validate_run_summary(
            {
                **RUN,
                "runId": "run-003",
                "passedCases": 12,
                "failedCases": 0,
                "completedAt": "2026-03-07T10:00:00Z",
            }
        )
    )

    snapshot = snapshot_from_latest(
        load_store(tmp_path), snapshot_id="nightly", created_at="2026-03-08T00:00:00Z"
    )

    assert snapshot.source_root_dir == str(tmp_path)
    assert [(b.benchmark_id, b.run_id, b.pass_rate) for b in snapshot.benchmarks] == [
        ("ama-memory", "run-003", 1.0)
    ]
    path = store.write_baseline(snapshot)
    assert path == tmp_path / "baselines" / "nightly.json"
    assert load_store(tmp_path).baselines[0].item == snapshot


# --- reading only what a caller needs -----------------------------------------


def test_counted_only_kinds_are_validated_but_not_kept(tmp_path: Path) -> None:
    fill(tmp_path)
    (tmp_path / "shadow" / "2026-03-06" / "broken.json").write_text("{}")

    contents = load_store(tmp_path, counted_only={StoreKind.SHADOWS})

    assert contents.shadows == ()
    assert contents.valid_counts.shadows == 1
    assert [i.path for i in contents.invalid_shadows] == [
        "shadow/2026-03-06/broken.json"
    ]
    assert contents.counted_only == frozenset({StoreKind.SHADOWS})
    assert status_report(contents, HarnessFlags())["shadows"]["total"] == 2


def test_latest_runs_only_keeps_the_latest_completed_run_per_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EvalStore(tmp_path)
    for index, (benchmark_id, minute, status) in enumerate(
        [
            ("a", 1, "completed"),
            ("a", 5, "completed"),
            ("a", 9, "failed"),
            ("b", 3, "completed"),
            ("b", 2, "completed"),
        ]
    ):
        document = {
            **RUN,
            "runId": f"run-{index}",
            "benchmarkId": benchmark_id,
            "status": status,
            "completedAt": f"2026-03-06T10:0{minute}:00Z",
        }
        store.write_run(validate_run_summary(document))
    monkeypatch.setattr(store_reader, "_CHUNK", 2)

    sequential = load_store(tmp_path, latest_runs_only=True)
    with ThreadPoolExecutor(max_workers=2) as executor:
        parallel = load_store(tmp_path, latest_runs_only=True, executor=executor)

    assert [s.item.run_id for s in sequential.runs] == ["run-1", "run-3"]
    assert parallel == sequential
    assert sequential.valid_counts.runs == 5
    assert sequential.latest_runs_only


def test_latest_runs_only_builds_runs_the_fast_check_leaves_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run with case results is validated in full; it competes for latest
    with runs kept as documents: the same instant goes to the first path, as
    the reference store reads it."""
    store = EvalStore(tmp_path)
    with_cases = {
        **RUN,
        "runId": "run-b",
        "completedAt": "2026-03-06T10:09:00Z",
        "totalCases": 2,
        "passedCases": 1,
        "failedCases": 1,
        "caseResults": [
            {"caseId": "x", "passed": True},
            {"caseId": "y", "passed": False},
        ],
    }
    store.write_run(validate_run_summary({**RUN, "runId": "run-0"}))
    store.write_run(validate_run_summary(with_cases))
    store.write_run(
        validate_run_summary(
            {**RUN, "runId": "run-c", "completedAt": "2026-03-06T11:09:00+01:00"}
        )
    )
    store.write_run(
        validate_run_summary({**with_cases, "notes": "a copy"}),
        relative="runs/zz/b.json",
    )
    (tmp_path / "runs" / "run-d.json").write_bytes(
        json.dumps({**RUN, "runId": "run-d", "status": "failed"}).encode()
    )
    monkeypatch.setattr(store_reader, "_CHUNK", 3)

    contents = load_store(tmp_path, latest_runs_only=True)

    assert [(s.path, s.item) for s in contents.runs] == [
        ("runs/run-b.json", validate_run_summary(with_cases))
    ]
    assert contents.valid_counts.runs == 5
    everything = load_store(tmp_path)
    assert [s.item.run_id for s in everything.runs] == [
        "run-0",
        "run-b",
        "run-c",
        "run-d",
        "run-b",
    ]


def test_counted_only_runs_keep_no_latest_run(tmp_path: Path) -> None:
    store = EvalStore(tmp_path)
    store.write_run(validate_run_summary(RUN))

    contents = load_store(
        tmp_path, counted_only={StoreKind.RUNS}, latest_runs_only=True
    )

    assert contents.runs == ()
    assert contents.valid_counts.runs == 1


@contextmanager
def _full_reader_only() -> Iterator[None]:
    """The store read as without orjson and msgspec: every file by
    ``json.loads`` and the full checks."""
    with (
        mock.patch.object(
            format_rules, "_read_canonical", return_value=format_rules._NO_VALUE
        ),
        mock.patch.object(store_reader, "_quick_check", return_value=None),
    ):
        yield


def _read_both_ways(
    root: Path, files: dict[str, bytes], read: Callable[[Path], Any]
) -> Any:
    """Add ``files`` to the store at ``root`` and read it with the fast
    readers and with the full reader only; both answers must be equal."""
    for relative, data in files.items():
        (root / relative).write_bytes(data)
    fast = read(root)
    with _full_reader_only():
        assert read(root) == fast
    return fast


def test_a_store_reads_the_same_without_orjson(tmp_path: Path) -> None:
    """Canonical files take the orjson path; every other file the stdlib
    one. The whole store's answer is the same as the stdlib reader's."""
    store = EvalStore(tmp_path)
    store.write_run(validate_run_summary(RUN))
    store.write_shadow(validate_shadow_record(SHADOW))
    odd = {
        "runs/compact.json": json.dumps({**RUN, "runId": "compact"}).encode(),
        "runs/bom.json": b"\xef\xbb\xbf" + store_json_bytes({**RUN, "runId": "bom"}),
        "runs/dup.json": store_json_bytes({**RUN, "runId": "dup"}).replace(
            b'"runId": "dup"', b'"runId": "x", "runId": "dup"'
        ),
        "runs/big.json": store_json_bytes({**RUN, "runId": "big", "totalCases": 2**63}),
        "runs/huge.json": store_json_bytes({**RUN, "runId": "huge"}).replace(
            b'"totalCases": 12', b'"totalCases": 99999999999999999999'
        ),
        "runs/nan.json": store_json_bytes({**RUN, "runId": "nan"}).replace(
            b"0.67", b"NaN"
        ),
        "runs/nul.json": store_json_bytes({**RUN, "runId": "nul", "notes": "a\x00"}),
        "runs/surrogate.json": store_json_bytes({**RUN, "runId": "s"}).replace(
            b'"s"', b'"\\udc00"'
        ),
        "shadow/2026-03-06/small.json": store_json_bytes(
            {**SHADOW, "traceId": "small", "durationMs": 1e-05}
        ),
    }
    fast = _read_both_ways(tmp_path, odd, load_store)

    assert sorted(s.item.run_id for s in fast.runs) == [
        "bom",
        "compact",
        "dup",
        "run-001",
    ]
    assert [(i.path, i.problems[0].code) for i in fast.invalid_runs] == [
        ("runs/big.json", "unstorable"),
        ("runs/huge.json", "unstorable"),
        ("runs/nan.json", "invalid"),
        ("runs/nul.json", "unstorable"),
        ("runs/surrogate.json", "unstorable"),
    ]
    assert fast.valid_counts.shadows == 2


def _gate_read(root: Path) -> Any:
    return load_store(root, latest_runs_only=True, counted_only={StoreKind.SHADOWS})


def test_the_gate_reads_a_store_the_same_without_orjson(tmp_path: Path) -> None:
    """The gate's runs and counted shadows are judged on orjson's reading
    when their numbers are bounded; every other number goes to the full
    reader, so integers past 64 bits are refused as unstorable and numbers
    past 2**53 - 1 as out of range, while the edges themselves are kept."""
    store = EvalStore(tmp_path)
    store.write_run(validate_run_summary(RUN))
    store.write_shadow(validate_shadow_record(SHADOW))

    def run(name: str, **metrics: Any) -> bytes:
        document = {**RUN, "runId": name, "benchmarkId": f"b-{name}"}
        document["metrics"] = {**RUN["metrics"], **metrics}
        return store_json_bytes(document)

    def shadow(name: str, **numbers: Any) -> bytes:
        return store_json_bytes({**SHADOW, "traceId": name, **numbers})

    odd = {
        "runs/wide.json": run("wide", m=123456789012345678901234567890),
        "runs/below.json": run("below", m=-(2**63) - 1),
        "runs/above.json": run("above", m=2**63),
        "runs/top.json": run("top", m=2**63 - 1, n=-(2**63)),
        "runs/far.json": run("far", m=1e20, n=-1e300),
        "runs/edge.json": run("edge", m=2**53 - 1, n=-float(2**53 - 1)),
        "runs/compact.json": json.dumps(
            {**RUN, "runId": "compact", "benchmarkId": "b-compact"}
        ).encode(),
        "runs/dup.json": run("dup").replace(
            b'"runId": "dup"', b'"runId": "x", "runId": "dup"'
        ),
        "runs/nul.json": run("nul").replace(b'"nul"', b'"n\\u0000"', 1),
        "shadow/2026-03-06/length.json": shadow("length", promptLength=2**63),
        "shadow/2026-03-06/wide.json": shadow(
            "wide", contextChars=123456789012345678901234567890
        ),
        "shadow/2026-03-06/slow.json": shadow("slow", durationMs=1e300),
        "shadow/2026-03-06/top.json": shadow("top", contextChars=2**63 - 1),
        "shadow/2026-03-06/edge.json": shadow(
            "edge", contextChars=2**53 - 1, durationMs=float(2**53 - 1)
        ),
    }
    fast = _read_both_ways(tmp_path, odd, _gate_read)

    assert sorted(s.item.run_id for s in fast.runs) == [
        "compact",
        "dup",
        "edge",
        "run-001",
    ]
    assert [(i.path, i.problems[0].code) for i in fast.invalid_runs] == [
        ("runs/above.json", "unstorable"),
        ("runs/below.json", "unstorable"),
        ("runs/far.json", "invalid"),
        ("runs/nul.json", "unstorable"),
        ("runs/top.json", "invalid"),
        ("runs/wide.json", "unstorable"),
    ]
    assert fast.valid_counts.runs == 4
    assert [(i.path, i.problems[0].code) for i in fast.invalid_shadows] == [
        ("shadow/2026-03-06/length.json", "unstorable"),
        ("shadow/2026-03-06/slow.json", "invalid"),
        ("shadow/2026-03-06/top.json", "invalid"),
        ("shadow/2026-03-06/wide.json", "unstorable"),
    ]
    assert [i.problems[0].message for i in fast.invalid_shadows[1:3]] == [
        "durationMs must be a non-negative number at most 9007199254740991",
        "contextChars must be a non-negative number at most 9007199254740991",
    ]
    assert fast.valid_counts.shadows == 2


def test_run_file_names_limit_the_runs_read(tmp_path: Path) -> None:
    store = EvalStore(tmp_path)
    for index in range(3):
        store.write_run(validate_run_summary({**RUN, "runId": f"run-{index}"}))

    contents = load_store(
        tmp_path, kinds={StoreKind.RUNS}, run_file_names={"run-2.json", "gone.json"}
    )

    assert [s.item.run_id for s in contents.runs] == ["run-2"]


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'{"a": [1, 2.5, "x"]}\n', {"a": [1, 2.5, "x"]}),
        (b'  {"a": 1}  ', {"a": 1}),
        (b'\xef\xbb\xbf{"a": 1}', {"a": 1}),
        ('{"é": "記憶"}'.encode(), {"é": "記憶"}),
        ("[1]", [1]),
    ],
)
def test_json_documents_parse_like_json_loads(data: bytes | str, value: Any) -> None:
    assert parse_json_document(data, what="f.json") == value


@pytest.mark.parametrize(
    "data", [b"", b'{"a": 1} x', b'{"a": 1}\x0c', b"{", b"\xff", b'{"a": 1}{"b": 2}']
)
def test_json_documents_that_are_not_one_value_are_refused(data: bytes) -> None:
    with pytest.raises(SchemaInvalid) as caught:
        parse_json_document(data, what="f.json")

    assert caught.value.problems[0].code == "invalid_json"
    assert caught.value.problems[0].message.startswith("f.json is not valid JSON: ")


def test_a_document_nesting_past_the_parser_is_invalid_json() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        parse_json_document(b"[" * 100_000 + b"]" * 100_000, what="x.json")

    assert [(p.path, p.code, p.message) for p in caught.value.problems] == [
        (
            "$",
            "invalid_json",
            "x.json is not valid JSON: nests too deep (more than 512 levels)",
        )
    ]


def test_a_document_with_unstorable_values_names_each_path() -> None:
    data = b'{"a": "x\\u0000", "b": ["\\ud800"], "c": 99999999999999999999}'

    with pytest.raises(SchemaInvalid) as caught:
        parse_json_document(data, what="x.json")

    assert [(p.path, p.message) for p in caught.value.problems] == [
        ("$.a", "value contains a NUL character (\\u0000)"),
        ("$.b[0]", "value contains a lone surrogate (\\ud800)"),
        ("$.c", "integer is out of range (64-bit signed)"),
    ]
