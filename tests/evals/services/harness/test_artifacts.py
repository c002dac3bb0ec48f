"""The eval harness service: the run bundle on disk (EV-C4: summary, one
file per scenario, events.jsonl, where and when files are written) and the
run summary document it holds."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from evals.core import files
from evals.core.files import json_text
from evals.core.runs import validate_run_summary
from evals.models import Run
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import (
    run_chunk_execute,
    run_finalize,
)
from tests.evals.harness_support import (
    SHIPPED,
    SMOKE_IDS,
    lines_of,
    run_suite,
    sha256_of,
)

pytestmark = pytest.mark.django_db


# --- EV-C4 -------------------------------------------------------------------


def test_ev_c4_bundle_has_summary_and_one_file_per_scenario(artifacts: Path) -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")

    run_dir = artifacts / "evals" / "smoke" / "balanced" / run.run_id
    assert Path(run.artifacts_dir) == run_dir
    assert sorted(p.name for p in (run_dir / "scenarios").iterdir()) == sorted(
        f"{sid}.json" for sid in SMOKE_IDS
    )
    assert (run_dir / "summary.json").is_file()
    for case in run.case_results.all():
        on_disk = (run_dir / "scenarios" / f"{case.case_id}.json").read_bytes()
        assert json.loads(on_disk) == case.details
        assert on_disk == json_text(case.details).encode()


def test_each_runs_directory_is_placed_where_the_filesystem_has_room(
    artifacts: Path,
) -> None:
    # The directory holding a suite's runs is the top of a hierarchy for the
    # block allocator (chattr +T), so a run's files are not made in a block
    # group crowded by what sits beside the artifacts directory.
    run = run_suite(SHIPPED / "smoke.jsonl")

    runs_dir = Path(run.artifacts_dir)
    flags = files.directory_flags(runs_dir.parent)
    if flags is None:
        pytest.skip("this filesystem keeps no inode flags (chattr)")
    assert flags & 0x00020000
    # Only the directory of runs: a run's own directory is made as usual.
    assert not (files.directory_flags(runs_dir) or 0) & 0x00020000


def test_ev_c4_scenario_files_are_synced_before_summary_is_written(
    artifacts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[int, list[str], bool]] = []

    def syncfs(fd: int) -> None:
        run_dir = next((artifacts / "evals" / "smoke" / "balanced").iterdir())
        seen.append(
            (
                os.fstat(fd).st_ino,
                sorted(p.name for p in (run_dir / "scenarios").iterdir()),
                (run_dir / "summary.json").exists(),
            )
        )

    monkeypatch.setattr(files, "_SYNCFS", syncfs)
    monkeypatch.setattr(files.os, "sync", lambda: pytest.fail("os.sync called"))

    run = run_suite(SHIPPED / "smoke.jsonl")

    run_dir = Path(run.artifacts_dir)
    # The filesystem of the run's directory, once every scenario file is
    # there and before summary.json is.
    assert seen == [
        (run_dir.stat().st_ino, sorted(f"{sid}.json" for sid in SMOKE_IDS), False)
    ]
    assert (run_dir / "summary.json").is_file()


def test_ev_c4_scenario_artifact_holds_everything_the_seed_lists() -> None:
    run = run_suite(SHIPPED / "smoke.jsonl", seed=3)
    artifact = run.case_results.get(case_id="smoke:hunger-raw-mutton").details
    script = {
        json.loads(line)["scenario_id"]: json.loads(line)
        for line in lines_of(SHIPPED / "smoke.script.jsonl")
    }

    assert artifact["runId"] == run.run_id
    assert artifact["suiteId"] == "smoke"
    assert artifact["profile"] == "balanced"
    assert artifact["mode"] == "thought_only"
    assert artifact["scenario"]["id"] == "smoke:hunger-raw-mutton"
    assert artifact["scenario"]["version"] == "v1"
    assert len(artifact["scenario"]["sha256"]) == 64
    assert artifact["scenario"]["actionAffordance"] == "allowed"
    assert artifact["frame"]["text"].startswith("[Bot State]\n")
    assert (artifact["frame"]["facts"], artifact["frame"]["memories"]) == (10, 0)
    assert artifact["model"] == {
        "id": "scripted:smoke.script.jsonl",
        "adapter": "scripted",
        "sampler": "standard",
        "samplerParams": {
            "name": "standard",
            "temperature": 0.7,
            "topP": 0.95,
            "maxTokens": 512,
        },
        "seed": 3,
    }
    assert artifact["rawOutput"] == script["smoke:hunger-raw-mutton"]["output"]
    assert artifact["thought"].startswith("My hunger is getting low")
    assert "INTENT" not in artifact["thought"]
    assert artifact["extractedGoal"]["action"] == "smelt"
    assert artifact["extractedGoal"]["target"] == "raw_mutton"
    assert artifact["extractedGoal"]["amount"] == 2
    assert artifact["grounding"] == {
        "pass": True,
        "reason": "grounded",
        "category": None,
        "referencedFacts": ["inventory:raw", "inventory:mutton"],
        "violations": [],
    }
    assert artifact["convertEligible"] is True
    assert artifact["convertEligibleReason"] == "eligible"
    assert artifact["latencyMs"] == 402.0
    assert artifact["startedAt"] <= artifact["completedAt"]
    assert artifact["pass"] is True
    assert artifact["failReasons"] == []
    assert artifact["tasksCreated"] is None
    assert artifact["error"] is None


def test_ev_c4_summary_file_holds_run_metrics_verdict_and_scenarios(
    artifacts: Path,
) -> None:
    run = run_suite(SHIPPED / "smoke.jsonl", profile="rich", sampler="low-variance")
    summary = json.loads((Path(run.artifacts_dir) / "summary.json").read_text())

    assert summary["schemaVersion"] == 1
    assert summary["run"]["runId"] == run.run_id
    assert summary["run"]["suiteId"] == "smoke"
    assert summary["run"]["suiteSha256"] == sha256_of(SHIPPED / "smoke.jsonl")
    assert summary["run"]["profile"] == "rich"
    assert summary["run"]["mode"] == "thought_only"
    assert summary["run"]["model"]["sampler"] == "low-variance"
    assert summary["run"]["status"] == "completed"
    assert summary["run"]["durationMs"] >= 0
    assert (summary["totalCases"], summary["passedCases"], summary["failedCases"]) == (
        5,
        5,
        0,
    )
    assert summary["metrics"] == run.metrics
    assert summary["verdict"] == {"pass": True, "failedProperties": []}
    assert [s["scenarioId"] for s in summary["scenarios"]] == SMOKE_IDS
    assert summary["scenarios"][0]["artifact"] == "scenarios/smoke:stable-plains.json"


def test_run_summary_is_a_valid_seed_002_run_summary() -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")

    parsed = validate_run_summary(run.summary)

    assert parsed.to_wire() == run.summary
    assert {
        k: run.summary[k]
        for k in ("runId", "benchmarkId", "status", "totalCases", "passedCases")
    } == {
        "runId": run.run_id,
        "benchmarkId": "smoke",
        "status": "completed",
        "totalCases": 5,
        "passedCases": 5,
    }
    assert run.summary["failedCases"] == 0
    assert run.summary["metrics"] == run.metrics
    assert [c["caseId"] for c in run.summary["caseResults"]] == SMOKE_IDS


def test_a_partial_run_summary_is_valid_and_says_how_many_never_ran() -> None:
    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )
    run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS[:2])

    run = run_finalize(run_pk=run.pk)

    assert run.status == Run.Status.PARTIAL
    summary = validate_run_summary(run.summary)
    assert (summary.total_cases, summary.passed_cases, summary.failed_cases) == (
        5,
        2,
        0,
    )
    assert summary.not_run_cases == 3
    assert summary.notes == "3 of 5 cases never ran"
    assert len(summary.case_results or ()) == 2
    assert (run.passed_cases, run.failed_cases, run.total_cases) == (2, 0, 5)
    bundle = json.loads((Path(run.artifacts_dir) / "summary.json").read_text())
    assert (bundle["totalCases"], bundle["passedCases"], bundle["failedCases"]) == (
        5,
        2,
        0,
    )
    assert bundle["notRunCases"] == 3


def test_ev_c4_summary_names_the_oracle_version_and_a_content_bundle_id() -> None:
    first = run_suite(SHIPPED / "smoke.jsonl")
    again = run_suite(SHIPPED / "smoke.jsonl")
    rich = run_suite(SHIPPED / "smoke.jsonl", profile="rich")

    def run_doc(run: Run) -> dict[str, Any]:
        summary = json.loads((Path(run.artifacts_dir) / "summary.json").read_text())
        return dict(summary["run"])

    one, two, three = run_doc(first), run_doc(again), run_doc(rich)
    assert one["oracleVersion"] == "v1"
    assert len(one["bundleId"]) == 16
    assert int(one["bundleId"], 16) >= 0
    # Same outputs, same id (run ids and times differ); another profile differs.
    assert first.run_id != again.run_id
    assert one["bundleId"] == two["bundleId"]
    assert three["bundleId"] != one["bundleId"]


def test_ev_c4_events_jsonl_records_the_run_as_structured_events() -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")

    lines = (Path(run.artifacts_dir) / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]

    assert [e["type"] for e in events] == [
        "eval_mode",
        "eval_suite_loaded",
        *["eval_scenario_started", "eval_scenario_result"] * 5,
        "eval_summary",
    ]
    assert all(set(e) == {"type", "timestamp_ms", "run", "payload"} for e in events)
    assert all(isinstance(e["timestamp_ms"], int) for e in events)
    assert events[0]["run"] == {
        "run_id": run.run_id,
        "mode": "thought_only",
        "suite_id": "smoke",
        "frame_profile": "balanced",
        "sampler_profile": "standard",
        "model_id": run.config["modelId"],
        "oracle_version": "v1",
    }
    assert events[0]["payload"] == {
        "mode": "thought_only",
        "planning_ack_enabled": False,
        "eval_isolation": True,
    }
    assert events[1]["payload"]["sha256"] == run.suite_sha256
    results = {
        e["payload"]["scenario_id"]: e["payload"]
        for e in events
        if e["type"] == "eval_scenario_result"
    }
    assert list(results) == SMOKE_IDS
    mutton = results["smoke:hunger-raw-mutton"]["output"]
    assert mutton["extracted_goal"] == {
        "present": True,
        "action": "smelt",
        "target": "raw_mutton",
    }
    assert mutton["grounding"]["referenced_facts"] == [
        "inventory:raw",
        "inventory:mutton",
    ]
    assert results["smoke:stable-plains"]["output"]["grounding"] is None
    summary = events[-1]["payload"]
    assert summary["pass"]["overall"] is True
    assert summary["metrics"]["action_rate"] == run.metrics["action_rate"]
