"""Result bundles (EV-C4): run ids, layout, artifact contents, atomic writes."""

from __future__ import annotations

import errno
import fcntl
import itertools
import json
import os
import random
import stat
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from evals.core import files
from evals.core.bundles import (
    RUN_ID_PATTERN,
    BundlePaths,
    bundle_paths,
    new_run_id,
    summary_artifact,
    write_bundle,
)
from evals.core.files import write_json_atomic
from evals.core.scenario_artifact import (
    FrameRecord,
    GroundingRecord,
    ModelConfig,
    ScenarioArtifact,
    ScenarioRef,
)
from evals.core.suite_types import EvalVerdict, ScenarioVerdict

RUN_ID = "20260203140509-0a1b2c"
MODEL = ModelConfig(
    model_id="scripted:idle-v1.script.jsonl",
    adapter="scripted",
    sampler="low-variance",
    seed=7,
    sampler_params={"temperature": 0.3, "top_p": 0.9, "max_tokens": 512},
)


# ---------------------------------------------------------------- run ids


def test_ev_c4_run_id_is_utc_timestamp_and_six_hex() -> None:
    now = datetime(2026, 2, 3, 14, 5, 9, 999_999, tzinfo=UTC)

    run_id = new_run_id(now, random.Random(42))

    suffix = f"{random.Random(42).getrandbits(24):06x}"
    assert run_id == f"20260203140509-{suffix}"
    assert RUN_ID_PATTERN.match(run_id)


def test_run_id_converts_other_zones_to_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    now = datetime(2026, 2, 3, 0, 30, 0, tzinfo=plus_two)

    assert new_run_id(now, random.Random(1)).startswith("20260202223000-")


def test_run_id_is_deterministic_for_same_seed_and_differs_across_draws() -> None:
    now = datetime(2026, 2, 3, tzinfo=UTC)
    rng = random.Random(5)

    first, second = new_run_id(now, rng), new_run_id(now, rng)

    assert first == new_run_id(now, random.Random(5))
    assert first != second


def test_run_id_refuses_naive_time() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        new_run_id(datetime(2026, 2, 3), random.Random(1))  # noqa: DTZ001


def test_run_id_suffix_is_zero_padded() -> None:
    class Zero(random.Random):
        def getrandbits(self, k: int, /) -> int:
            return 0x00000F

    assert new_run_id(datetime(2026, 1, 1, tzinfo=UTC), Zero()) == (
        "20260101000000-00000f"
    )


# ---------------------------------------------------------------- layout


def test_ev_c4_bundle_layout_is_exact(tmp_path: Path) -> None:
    paths = bundle_paths(tmp_path, "idle-v1", "balanced", RUN_ID)

    run_dir = tmp_path / "evals" / "idle-v1" / "balanced" / RUN_ID
    assert paths == BundlePaths(
        run_dir=run_dir,
        summary=run_dir / "summary.json",
        scenarios_dir=run_dir / "scenarios",
    )
    assert paths.scenario("idle-v1:stable-meadow-day") == (
        run_dir / "scenarios" / "idle-v1:stable-meadow-day.json"
    )


@pytest.mark.parametrize(
    ("suite_id", "profile", "run_id"),
    [
        ("..", "balanced", RUN_ID),
        ("a/b", "balanced", RUN_ID),
        ("", "balanced", RUN_ID),
        ("idle", ".hidden", RUN_ID),
        ("idle", "rich\\x", RUN_ID),
        ("idle", "rich", "2026-02-03"),
        ("idle", "rich", "20260203140509-0A1B2C"),
    ],
)
def test_unsafe_bundle_components_are_refused(
    tmp_path: Path, suite_id: str, profile: str, run_id: str
) -> None:
    with pytest.raises(ValueError, match="suite_id|profile|run_id"):
        bundle_paths(tmp_path, suite_id, profile, run_id)


def test_unsafe_scenario_id_is_refused(tmp_path: Path) -> None:
    paths = bundle_paths(tmp_path, "idle", "rich", RUN_ID)

    with pytest.raises(ValueError, match="scenario_id"):
        paths.scenario("../../escape")


# ---------------------------------------------------------------- documents


ARTIFACT = ScenarioArtifact(
    run_id=RUN_ID,
    suite_id="idle-v1",
    profile="balanced",
    mode="thought_only",
    scenario=ScenarioRef(
        scenario_id="idle-v1:hunger-half",
        version="v1",
        sha256="ab" * 32,
        stimulus_kind="hunger_drop",
        action_affordance="allowed",
    ),
    frame=FrameRecord(
        text="[Bot State]\nHealth: 18/20\nHunger: 9/20", facts=2, memories=0, deltas=0
    ),
    model=MODEL,
    raw_output="Cook the beef. [GOAL: smelt raw_beef 3]",
    thought="Cook the beef.",
    extracted_goal={
        "action": "smelt",
        "target": "raw_beef",
        "targetId": None,
        "amount": 3,
        "raw": "[GOAL: smelt raw_beef 3]",
    },
    goal_fail_reason=None,
    grounding=GroundingRecord(
        passed=True,
        reason="grounded",
        category=None,
        referenced_facts=("inventory:raw_beef",),
    ),
    convert_eligible=True,
    convert_eligible_reason="eligible",
    tasks_created=None,
    started_at="2026-02-03T14:05:09.000Z",
    completed_at="2026-02-03T14:05:09.533Z",
    latency_ms=533.0,
    error=None,
    passed=True,
    fail_reasons=(),
    available_facts=2,
    suite_line=3,
    tags=("food",),
    routable=True,
)


def scenario_doc(**overrides: Any) -> dict[str, Any]:
    return replace(ARTIFACT, **overrides).to_wire()


def test_ev_c4_scenario_artifact_holds_every_required_field() -> None:
    assert scenario_doc() == {
        "schemaVersion": 1,
        "runId": RUN_ID,
        "suiteId": "idle-v1",
        "profile": "balanced",
        "mode": "thought_only",
        "scenario": {
            "id": "idle-v1:hunger-half",
            "version": "v1",
            "sha256": "ab" * 32,
            "stimulusKind": "hunger_drop",
            "actionAffordance": "allowed",
        },
        "frame": {
            "text": "[Bot State]\nHealth: 18/20\nHunger: 9/20",
            "facts": 2,
            "memories": 0,
            "deltas": 0,
        },
        "model": {
            "id": "scripted:idle-v1.script.jsonl",
            "adapter": "scripted",
            "sampler": "low-variance",
            "samplerParams": {"temperature": 0.3, "top_p": 0.9, "max_tokens": 512},
            "seed": 7,
        },
        "rawOutput": "Cook the beef. [GOAL: smelt raw_beef 3]",
        "thought": "Cook the beef.",
        "extractedGoal": {
            "action": "smelt",
            "target": "raw_beef",
            "targetId": None,
            "amount": 3,
            "raw": "[GOAL: smelt raw_beef 3]",
        },
        "goalFailReason": None,
        "grounding": {
            "pass": True,
            "reason": "grounded",
            "category": None,
            "referencedFacts": ["inventory:raw_beef"],
            "violations": [],
        },
        "convertEligible": True,
        "convertEligibleReason": "eligible",
        "tasksCreated": None,
        "startedAt": "2026-02-03T14:05:09.000Z",
        "completedAt": "2026-02-03T14:05:09.533Z",
        "latencyMs": 533.0,
        "error": None,
        "pass": True,
        "failReasons": [],
        "availableFacts": 2,
        "hallucination": None,
        "suiteLine": 3,
        "tags": ["food"],
        "routable": True,
        "sanitizerFlags": [],
        "planning": None,
        "claims": None,
    }


def test_pa_d3_no_goal_artifact_is_not_eligible() -> None:
    doc = scenario_doc(
        extracted_goal=None,
        goal_fail_reason="no_tag",
        grounding=GroundingRecord(passed=None, reason=None, category=None),
        convert_eligible=False,
        convert_eligible_reason="no_goal",
        mode="end_to_end",
        tasks_created=0,
        fail_reasons=("b", "a"),
        passed=False,
    )

    assert (
        doc["extractedGoal"],
        doc["convertEligible"],
        doc["convertEligibleReason"],
        doc["tasksCreated"],
        doc["failReasons"],
    ) == (None, False, "no_goal", 0, ["a", "b"])


VERDICT = EvalVerdict(
    passed=False,
    failed_properties=("no_compulsion",),
    per_scenario=(
        ScenarioVerdict("idle-v1:a", passed=True, fail_reasons=()),
        ScenarioVerdict("idle-v1:b", passed=False, fail_reasons=("compulsion",)),
    ),
)


def summary_doc(**overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "run_id": RUN_ID,
        "suite_id": "idle-v1",
        "suite_sha256": "cd" * 32,
        "suite_line_count": 2,
        "profile": "balanced",
        "mode": "thought_only",
        "model": MODEL,
        "status": "completed",
        "started_at": "2026-02-03T14:05:09.000Z",
        "completed_at": "2026-02-03T14:05:11.250Z",
        "metrics": {"action_rate": 0.5, "compulsion_count": 1},
        "verdict": VERDICT,
        "suite_path": "evals/suites/idle-v1.jsonl",
    }
    values.update(overrides)
    return summary_artifact(**values)


def test_ev_c4_summary_artifact_rolls_up_the_run() -> None:
    assert summary_doc() == {
        "schemaVersion": 1,
        "run": {
            "runId": RUN_ID,
            "suiteId": "idle-v1",
            "suitePath": "evals/suites/idle-v1.jsonl",
            "suiteSha256": "cd" * 32,
            "suiteLineCount": 2,
            "profile": "balanced",
            "mode": "thought_only",
            "model": {
                "id": "scripted:idle-v1.script.jsonl",
                "adapter": "scripted",
                "sampler": "low-variance",
                "samplerParams": {"temperature": 0.3, "top_p": 0.9, "max_tokens": 512},
                "seed": 7,
            },
            "status": "completed",
            "startedAt": "2026-02-03T14:05:09.000Z",
            "completedAt": "2026-02-03T14:05:11.250Z",
            "durationMs": 2250.0,
        },
        "totalCases": 2,
        "passedCases": 1,
        "failedCases": 1,
        "metrics": {"action_rate": 0.5, "compulsion_count": 1},
        "verdict": {"pass": False, "failedProperties": ["no_compulsion"]},
        "scenarios": [
            {
                "scenarioId": "idle-v1:a",
                "pass": True,
                "failReasons": [],
                "artifact": "scenarios/idle-v1:a.json",
            },
            {
                "scenarioId": "idle-v1:b",
                "pass": False,
                "failReasons": ["compulsion"],
                "artifact": "scenarios/idle-v1:b.json",
            },
        ],
    }


def test_summary_duration_is_null_while_running() -> None:
    doc = summary_doc(status="running", completed_at=None)

    assert (doc["run"]["completedAt"], doc["run"]["durationMs"]) == (None, None)


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"status": "done"}, "status"),
        ({"mode": "e2e"}, "mode"),
        ({"completed_at": "yesterday"}, "isoformat|Invalid"),
        ({"completed_at": "2026-02-03T14:05:11"}, "zoned and naive"),
    ],
)
def test_summary_refuses_bad_values(overrides: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        summary_doc(**overrides)


# ---------------------------------------------------------------- writing


def test_ev_c4_write_bundle_writes_summary_and_one_file_per_scenario(
    tmp_path: Path,
) -> None:
    scenarios = {
        "idle-v1:a": scenario_doc(
            scenario=replace(ARTIFACT.scenario, scenario_id="idle-v1:a")
        ),
        "idle-v1:b": scenario_doc(
            scenario=replace(ARTIFACT.scenario, scenario_id="idle-v1:b"), passed=False
        ),
    }
    summary = summary_doc()

    paths = write_bundle(
        tmp_path,
        suite_id="idle-v1",
        profile="balanced",
        run_id=RUN_ID,
        summary=summary,
        scenarios=scenarios,
    )

    run_dir = tmp_path / "evals" / "idle-v1" / "balanced" / RUN_ID
    assert sorted(p.relative_to(run_dir).as_posix() for p in run_dir.rglob("*")) == [
        "scenarios",
        "scenarios/idle-v1:a.json",
        "scenarios/idle-v1:b.json",
        "summary.json",
    ]
    assert paths.run_dir == run_dir
    assert json.loads((run_dir / "summary.json").read_text("utf-8")) == summary
    for entry in summary["scenarios"]:
        artifact = json.loads((run_dir / entry["artifact"]).read_text("utf-8"))
        assert artifact == scenarios[entry["scenarioId"]]


def test_written_json_is_sorted_indented_utf8_with_newline(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"

    write_json_atomic(path, {"b": "é", "a": [1]})

    assert path.read_bytes() == '{\n  "a": [\n    1\n  ],\n  "b": "é"\n}\n'.encode()


def test_summary_is_written_after_every_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[str] = []
    real_replace = os.replace

    def recording_replace(src: str, dst: str | Path) -> None:
        written.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", recording_replace)

    write_bundle(
        tmp_path,
        suite_id="idle-v1",
        profile="rich",
        run_id=RUN_ID,
        summary={"schemaVersion": 1},
        scenarios={"z": {"x": 1}, "a": {"x": 2}},
    )

    assert written == ["z.json", "a.json", "summary.json"]


def test_failed_write_keeps_the_old_file_and_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "summary.json"
    write_json_atomic(path, {"version": 1})

    def failing_replace(src: str, dst: str | Path) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", failing_replace)

    with pytest.raises(OSError, match="disk full"):
        write_json_atomic(path, {"version": 2})

    assert json.loads(path.read_text("utf-8")) == {"version": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]


def test_rewriting_a_bundle_replaces_files(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {"suite_id": "s", "profile": "minimal", "run_id": RUN_ID}
    write_bundle(tmp_path, summary={"n": 1}, scenarios={"a": {"n": 1}}, **kwargs)

    paths = write_bundle(
        tmp_path, summary={"n": 2}, scenarios={"a": {"n": 2}}, **kwargs
    )

    assert json.loads(paths.summary.read_text("utf-8")) == {"n": 2}
    assert json.loads(paths.scenario("a").read_text("utf-8")) == {"n": 2}
    assert sorted(p.name for p in paths.run_dir.iterdir()) == [
        "scenarios",
        "summary.json",
    ]


def test_written_files_are_private_like_mkstemp_made_them(tmp_path: Path) -> None:
    path = tmp_path / "new" / "doc.json"

    write_json_atomic(path, {"a": 1}, durable=False)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["doc.json"]


def test_a_temp_name_left_by_a_crashed_writer_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "doc.json"
    monkeypatch.setattr(files, "_TEMP_COUNTER", itertools.count(7))
    stale = tmp_path / f".doc.json.{os.getpid():x}-7.tmp"
    stale.write_text("half a fi")

    write_json_atomic(path, {"a": 1})

    assert json.loads(path.read_text("utf-8")) == {"a": 1}
    assert stale.read_text() == "half a fi"
    assert sorted(p.name for p in tmp_path.iterdir()) == [stale.name, "doc.json"]


# ---------------------------------------------------------------- sync


def _fd_inode(fd: int) -> int:
    return os.fstat(fd).st_ino


def test_sync_to_disk_syncs_the_filesystem_of_each_directory_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(files, "_SYNCFS", lambda fd: synced.append(_fd_inode(fd)))
    monkeypatch.setattr(files.os, "sync", lambda: pytest.fail("os.sync called"))
    (tmp_path / "scenarios").mkdir()

    files.sync_to_disk(tmp_path, tmp_path / "scenarios")

    # One filesystem: one syncfs, on the first directory.
    assert synced == [tmp_path.stat().st_ino]


@pytest.mark.parametrize("syncfs", [None, "fails"])
def test_sync_to_disk_falls_back_to_a_global_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, syncfs: str | None
) -> None:
    def failing(fd: int) -> None:
        raise OSError(5, "syncfs: Input/output error")

    synced: list[str] = []
    monkeypatch.setattr(files, "_SYNCFS", failing if syncfs else None)
    monkeypatch.setattr(files.os, "sync", lambda: synced.append("sync"))

    files.sync_to_disk(tmp_path)

    assert synced == ["sync"]


def test_sync_to_disk_falls_back_when_a_directory_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    monkeypatch.setattr(files, "_SYNCFS", lambda fd: synced.append("syncfs"))
    monkeypatch.setattr(files.os, "sync", lambda: synced.append("sync"))

    files.sync_to_disk(tmp_path / "missing")

    assert synced == ["sync"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux syncfs")
def test_the_c_librarys_syncfs_is_found_and_reports_failures(tmp_path: Path) -> None:
    syncfs = files._load_syncfs()
    assert syncfs is not None
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        syncfs(fd)
    finally:
        os.close(fd)
    # A closed descriptor: the call's -1 and errno become an OSError.
    with pytest.raises(OSError, match="^\\[Errno 9\\] syncfs: ") as failure:
        syncfs(fd)
    assert failure.value.errno == errno.EBADF


TOPDIR = 0x00020000


def test_spread_subdirectories_marks_the_directory_top_of_a_hierarchy(
    tmp_path: Path,
) -> None:
    before = files.directory_flags(tmp_path)
    if before is None:
        pytest.skip("this filesystem keeps no inode flags (chattr)")
    assert not before & TOPDIR

    assert files.spread_subdirectories(tmp_path) is True
    assert files.spread_subdirectories(tmp_path) is True

    # The flag is added; every other flag stays as it was.
    assert files.directory_flags(tmp_path) == before | TOPDIR
    (tmp_path / "run").mkdir()
    run_flags = files.directory_flags(tmp_path / "run")
    assert run_flags is not None and not run_flags & TOPDIR


def test_spread_subdirectories_changes_nothing_where_there_is_no_such_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert files.spread_subdirectories(tmp_path / "missing") is False

    def unsupported(*args: Any) -> None:
        raise OSError(errno.ENOTTY, "Inappropriate ioctl for device")

    monkeypatch.setattr(fcntl, "ioctl", unsupported)
    assert files.spread_subdirectories(tmp_path) is False

    monkeypatch.setattr(files, "_flag_requests", lambda: None)
    assert files.spread_subdirectories(tmp_path) is False


def test_flag_requests_are_linuxs_fs_ioc_getflags_and_setflags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(files.sys, "platform", "linux")
    monkeypatch.setattr(
        files.os, "uname", lambda: os.uname_result(("Linux", "h", "6", "1", "x86_64"))
    )
    assert files._flag_requests() == (0x80086601, 0x40086602)
    monkeypatch.setattr(
        files.os, "uname", lambda: os.uname_result(("Linux", "h", "6", "1", "ppc64le"))
    )
    assert files._flag_requests() is None
    monkeypatch.setattr(files.sys, "platform", "darwin")
    assert files._flag_requests() is None
