"""The eval harness service: suites, runs, scenarios, bundles, verdicts.

Seed 000 EV-C1..EV-C7 and PA-D1..PA-D3, with the exact log lines, in
thought_only mode (end_to_end has its own module). Runs execute in-process
(``run_execute``) except where the Celery chord itself is under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.errors import CoreError, SchemaInvalid
from evals.core import files
from evals.core.files import json_text
from evals.core.runs import validate_run_summary
from evals.core.suite_types import SuiteInvalid
from evals.models import Benchmark, CaseResult, Run, SuiteVersion
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import (
    case_chunks,
    run_chunk_execute,
    run_execute,
    run_finalize,
)

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
SMOKE_IDS = [
    "smoke:stable-plains",
    "smoke:sheltered-night",
    "smoke:hunger-raw-mutton",
    "smoke:fox-at-dawn",
    "smoke:zombie-close",
]


def run_suite(suite: Path, **options: Any) -> Run:
    options.setdefault("profile", "balanced")
    options.setdefault("mode", "thought_only")
    options.setdefault("model", "scripted")
    run = eval_run_create(suite_path=suite, schedule=False, **options)
    return run_execute(run=run)


def lines_of(path: Path) -> list[str]:
    return [line for line in path.read_text("utf-8").splitlines() if line.strip()]


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stored_counts() -> tuple[int, int, int, int]:
    return (
        Benchmark.objects.count(),
        SuiteVersion.objects.count(),
        Run.objects.count(),
        CaseResult.objects.count(),
    )


# --- EV-C1 -------------------------------------------------------------------


def test_ev_c1_edited_suite_shows_new_line_count_and_sha_on_next_run(
    suites: Path, log_lines: Any
) -> None:
    smoke = suites / "smoke.jsonl"
    first_sha = sha256_of(smoke)
    run_suite(smoke)
    extra = json.loads(lines_of(smoke)[0])
    extra["scenario_id"] = "smoke:stable-plains-again"
    write_lines(smoke, [*lines_of(smoke), json.dumps(extra)])
    script = suites / "smoke.script.jsonl"
    write_lines(
        script,
        [
            *lines_of(script),
            json.dumps({"scenario_id": extra["scenario_id"], "output": "All calm."}),
        ],
    )

    second = run_suite(smoke)

    assert log_lines("[Eval] suite_loaded") == [
        f"[Eval] suite_loaded path={smoke} line_count=5 suite_sha256={first_sha}",
        f"[Eval] suite_loaded path={smoke} line_count=6 suite_sha256={sha256_of(smoke)}",
    ]
    assert second.total_cases == 6
    assert second.case_results.count() == 6
    benchmark = Benchmark.objects.get(benchmark_id="smoke")
    assert benchmark.kind == Benchmark.Kind.SUITE
    assert benchmark.case_count == 6
    assert sorted(
        benchmark.suite_versions.values_list("suite_sha256", "line_count")
    ) == sorted([(first_sha, 5), (sha256_of(smoke), 6)])


def test_ev_c1_same_file_twice_is_one_version(suites: Path) -> None:
    run_suite(suites / "smoke.jsonl")
    run_suite(suites / "smoke.jsonl")

    assert SuiteVersion.objects.count() == 1
    assert Run.objects.filter(benchmark__benchmark_id="smoke").count() == 2


# --- EV-C2 -------------------------------------------------------------------


def test_ev_c2_every_invalid_line_is_logged_and_nothing_is_stored(
    tmp_path: Path, log_lines: Any
) -> None:
    good = lines_of(SHIPPED / "smoke.jsonl")[0]
    bad = json.loads(good)
    bad["bogus"] = 1
    bad["stimulus"]["strength"] = 2
    suite = tmp_path / "broken.jsonl"
    suite.write_text(f"{json.dumps(bad)}\n\n{{bad json\n{good}\n", encoding="utf-8")
    shutil.copy(SHIPPED / "smoke.script.jsonl", tmp_path / "broken.script.jsonl")

    with pytest.raises(SuiteInvalid) as caught:
        eval_run_create(
            suite_path=suite,
            profile="balanced",
            mode="thought_only",
            model="scripted",
        )

    assert [i.line for i in caught.value.invalid_lines] == [1, 3, 4]
    assert log_lines("[Eval] suite_invalid") == [
        f"[Eval] suite_invalid path={suite} line=1 errors="
        '[{"path":"$.bogus","message":"unknown property: bogus"},'
        '{"path":"$.stimulus.strength","message":"2 is greater than the maximum '
        'of 1"}]',
        f"[Eval] suite_invalid path={suite} line=3 errors="
        '[{"path":"$","message":"invalid JSON: Expecting property name enclosed '
        'in double quotes at column 2"}]',
        f"[Eval] suite_invalid path={suite} line=4 errors="
        '[{"path":"$.scenario_id","message":"duplicate scenario_id '
        "'smoke:stable-plains' (first defined on line 1)\"}]",
    ]
    assert log_lines("[Eval] suite_loaded") == []
    assert stored_counts() == (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("profile", "huge"),
        ("mode", "sideways"),
        ("model", "gpt-99"),
        ("sampler", "wild"),
    ],
)
def test_unknown_option_is_refused_before_anything_is_read_or_stored(
    option: str, value: str, log_lines: Any
) -> None:
    options = {
        "profile": "balanced",
        "mode": "thought_only",
        "model": "scripted",
        option: value,
    }

    with pytest.raises(SchemaInvalid) as caught:
        eval_run_create(suite_path=SHIPPED / "smoke.jsonl", **options)

    assert [p.path for p in caught.value.problems] == [option]
    assert caught.value.problems[0].code == "invalid_choice"
    assert log_lines("[Eval]") == []
    assert stored_counts() == (0, 0, 0, 0)


def test_scripted_model_without_a_script_file_is_a_clear_error(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "lonely.jsonl"
    shutil.copy(SHIPPED / "smoke.jsonl", suite)

    with pytest.raises(CoreError) as caught:
        eval_run_create(
            suite_path=suite, profile="minimal", mode="thought_only", model="scripted"
        )

    assert caught.value.code == "script_unreadable"
    assert str(tmp_path / "lonely.script.jsonl") in caught.value.message
    assert stored_counts() == (0, 0, 0, 0)


# --- EV-C3, PA-D1..D3 --------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "counts"),
    [
        ("minimal", [(5, 0, 0)] * 5),
        ("balanced", [(10, 0, 0), (10, 1, 0), (10, 0, 0), (9, 0, 0), (10, 0, 0)]),
        ("rich", [(10, 0, 0), (11, 1, 1), (11, 0, 1), (9, 0, 1), (11, 0, 2)]),
    ],
)
def test_ev_c3_each_scenario_logs_profile_and_frame_counts(
    profile: str, counts: list[tuple[int, int, int]], log_lines: Any
) -> None:
    run_suite(SHIPPED / "smoke.jsonl", profile=profile, seed=7)

    assert log_lines("[Eval] scenario_run") == [
        f"[Eval] scenario_run id={sid} profile={profile} facts={f} memories={m} "
        f"deltas={d} seed=7"
        for sid, (f, m, d) in zip(SMOKE_IDS, counts, strict=True)
    ]


def test_pa_d2_grounded_goals_log_goal_emitted(log_lines: Any) -> None:
    run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] goal_emitted") == [
        "[Eval] goal_emitted scenario=smoke:hunger-raw-mutton action=smelt "
        "target=raw_mutton grounding=pass routable=true",
        "[Eval] goal_emitted scenario=smoke:zombie-close action=build "
        "target=cobblestone grounding=pass routable=true",
    ]


def test_pa_d3_goal_less_thoughts_log_no_goal_and_stay_ineligible(
    log_lines: Any,
) -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] no_goal") == [
        "[Eval] no_goal scenario=smoke:stable-plains convertEligible=false",
        "[Eval] no_goal scenario=smoke:sheltered-night convertEligible=false",
        "[Eval] no_goal scenario=smoke:fox-at-dawn convertEligible=false",
    ]
    eligible = {
        c.case_id: (c.details["convertEligible"], c.details["convertEligibleReason"])
        for c in run.case_results.all()
    }
    assert eligible == {
        "smoke:stable-plains": (False, "no_goal"),
        "smoke:sheltered-night": (False, "no_goal"),
        "smoke:hunger-raw-mutton": (True, "eligible"),
        "smoke:fox-at-dawn": (False, "no_goal"),
        "smoke:zombie-close": (True, "eligible"),
    }


def test_pa_d1_fabricated_entity_logs_grounding_fail_and_fails_the_run(
    suites: Path, log_lines: Any
) -> None:
    script = suites / "smoke.script.jsonl"
    rows = [json.loads(line) for line in lines_of(script)]
    # fox-at-dawn is "allowed": acting is fine, inventing a wolf is not.
    rows[3]["output"] = "A wolf is stalking the fox. [GOAL: navigate wolf]"
    write_lines(script, [json.dumps(r) for r in rows])

    run = run_suite(suites / "smoke.jsonl")

    assert log_lines("[Grounding]") == [
        "[Grounding] fail scenario=smoke:fox-at-dawn reason=missing_entity"
    ]
    assert (
        "[Eval] goal_emitted scenario=smoke:fox-at-dawn action=navigate "
        "target=wolf grounding=fail routable=true"
    ) in log_lines("[Eval] goal_emitted")
    assert log_lines("[Eval] FAIL") == [
        "[Eval] FAIL properties_satisfied=false failed=no_hallucination"
    ]
    assert run.metrics["hallucination_count"] == 1
    assert run.metrics["hallucination_missing_entity"] == 1
    # An ungrounded goal is no action (as in the reference harness), so the
    # actions' pass rate stays 1 and the goals' rate shows the failure.
    assert run.metrics["grounding_pass_rate"] == 1.0
    assert run.metrics["goal_grounding_pass_rate"] == pytest.approx(2 / 3)
    fox = run.case_results.get(case_id="smoke:fox-at-dawn")
    assert fox.passed is False
    assert fox.details["grounding"] == {
        "pass": False,
        "reason": "missing_entity",
        "category": "missing_entity",
        "referencedFacts": [],
        "violations": [{"type": "missing_entity", "trigger": "wolf"}],
    }
    assert fox.details["convertEligible"] is False
    assert fox.details["convertEligibleReason"] == "grounding_fail:missing_entity"
    assert fox.details["failReasons"] == ["hallucination:missing_entity"]


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


# --- EV-C5, EV-C7 ------------------------------------------------------------


def test_ev_c5_summary_line_and_stored_metrics(log_lines: Any) -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] summary") == [
        "[Eval] summary action_rate=0.4 grounding_pass_rate=1 repetition_rate=0 "
        "compulsion_proxy=0 latency_p95_ms=455.1"
    ]
    assert run.metrics["action_rate"] == 0.4
    assert run.metrics["latency_p50_ms"] == 310.0
    assert run.metrics["latency_p95_ms"] == 455.1
    assert run.metrics["inertia_count"] == 0
    assert "tasks_created" not in run.metrics


def test_ev_c7_run_without_any_action_passes(suites: Path, log_lines: Any) -> None:
    calm = suites / "calm.jsonl"
    write_lines(calm, lines_of(suites / "smoke.jsonl")[:2])

    run = run_suite(calm, script_path=suites / "smoke.script.jsonl")

    assert run.metrics["action_rate"] == 0.0
    assert log_lines("[Eval] summary") == [
        "[Eval] summary action_rate=0 grounding_pass_rate=1 repetition_rate=0 "
        "compulsion_proxy=0 latency_p95_ms=310"
    ]
    assert log_lines("[Eval] PASS") == [
        "[Eval] PASS properties_satisfied=true action_rate_may_be_zero=true"
    ]
    assert (run.status, run.verdict_passed, run.failed_properties) == (
        Run.Status.COMPLETED,
        True,
        [],
    )


def test_regressed_script_fails_on_compulsion(log_lines: Any) -> None:
    run = run_suite(
        SHIPPED / "idle-v1.jsonl",
        script_path=SHIPPED / "idle-v1-regressed.script.jsonl",
    )

    assert log_lines("[Eval] FAIL") == [
        "[Eval] FAIL properties_satisfied=false failed=no_compulsion"
    ]
    assert log_lines("[Eval] PASS") == []
    assert (run.status, run.verdict_passed, run.failed_properties) == (
        Run.Status.COMPLETED,
        False,
        ["no_compulsion"],
    )
    assert (run.passed_cases, run.failed_cases, run.total_cases) == (18, 2, 20)
    assert run.metrics["compulsion_count"] == 2
    failing = sorted(
        run.case_results.filter(passed=False).values_list("case_id", flat=True)
    )
    assert failing == ["idle-v1:stable-meadow-day", "idle-v1:villager-passing"]


# --- EV-C6 (thought_only; end_to_end in test_harness_end_to_end.py) ----------


def test_ev_c6_thought_only_logs_its_mode_once_and_publishes_nothing(
    log_lines: Any,
) -> None:
    from stream.models import Thought

    run = run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] mode=") == ["[Eval] mode=thought_only"]
    assert Thought.objects.count() == 0
    assert "agent" not in run.config


# --- runs: status, resume, failures ------------------------------------------


def test_run_is_queued_with_its_config_until_executed() -> None:
    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="minimal",
        mode="thought_only",
        model="baseline",
        sampler="creative",
        seed=11,
        schedule=False,
    )

    assert run.status == Run.Status.QUEUED
    assert run.progress_done == 0
    assert run.total_cases == 5
    assert run.suite_sha256 == sha256_of(SHIPPED / "smoke.jsonl")
    assert {k: run.config[k] for k in ("profile", "mode", "model", "sampler")} == {
        "profile": "minimal",
        "mode": "thought_only",
        "model": "baseline",
        "sampler": "creative",
    }
    assert (run.config["modelId"], run.config["seed"], run.config["script"]) == (
        "baseline",
        11,
        None,
    )
    assert run.summary["status"] == "running"
    assert len(run.run_id) == 21


def test_resume_runs_only_the_scenarios_without_a_result(
    caplog: pytest.LogCaptureFixture, log_lines: Any
) -> None:
    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )
    run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS[:2])
    first = dict(run.case_results.values_list("case_id", "pk"))
    caplog.clear()

    run = run_execute(run=run)

    assert [line.split()[2] for line in log_lines("[Eval] scenario_run")] == [
        f"id={sid}" for sid in SMOKE_IDS[2:]
    ]
    assert (
        dict(
            run.case_results.filter(case_id__in=SMOKE_IDS[:2]).values_list(
                "case_id", "pk"
            )
        )
        == first
    )
    assert (run.status, run.progress_done, run.case_results.count()) == (
        Run.Status.COMPLETED,
        5,
        5,
    )


def test_a_redelivered_chunk_records_nothing_twice() -> None:
    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )

    first = run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)
    second = run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)

    run.refresh_from_db()
    assert (first, second, run.progress_done) == (5, 0, 5)


def test_suite_edited_mid_run_fails_the_run_with_the_reason(
    suites: Path, log_lines: Any
) -> None:
    smoke = suites / "smoke.jsonl"
    run = eval_run_create(
        suite_path=smoke,
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )
    old_sha = run.suite_sha256
    write_lines(smoke, lines_of(smoke)[:4])

    recorded = run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)

    run.refresh_from_db()
    assert recorded == 0
    assert run.status == Run.Status.FAILED
    assert run.error == (
        f"suite {smoke} changed after the run started (sha256 {old_sha} -> "
        f"{sha256_of(smoke)}); start a new run"
    )
    assert log_lines("[Eval] run_failed") == [
        f"[Eval] run_failed run_id={run.run_id} reason=suite_changed"
    ]
    assert run.case_results.count() == 0
    assert (run.verdict_passed, run.failed_properties) == (
        False,
        ["no_scenario_errors"],
    )
    summary = json.loads((Path(run.artifacts_dir) / "summary.json").read_text())
    assert summary["run"]["status"] == "failed"
    assert summary["verdict"] == {
        "pass": False,
        "failedProperties": ["no_scenario_errors"],
    }


def test_a_scenario_the_model_cannot_answer_makes_the_run_partial(
    suites: Path, log_lines: Any
) -> None:
    script = suites / "smoke.script.jsonl"
    write_lines(script, lines_of(script)[:4])

    run = run_suite(suites / "smoke.jsonl")

    assert run.status == Run.Status.PARTIAL
    assert run.failed_properties == ["no_scenario_errors"]
    zombie = run.case_results.get(case_id="smoke:zombie-close")
    assert zombie.passed is False
    assert zombie.error.startswith(
        "script_missing: no scripted output for scenario_id=smoke:zombie-close"
    )
    assert zombie.details["failReasons"] == ["error"]
    assert run.metrics["scenarios_errored"] == 1
    assert log_lines("[Eval] FAIL") == [
        "[Eval] FAIL properties_satisfied=false failed=no_scenario_errors"
    ]


def test_finalize_twice_changes_and_logs_nothing(log_lines: Any) -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")
    before = (run.completed_at, run.summary)

    again = run_finalize(run_pk=run.pk)

    assert (again.completed_at, again.summary) == before
    assert len(log_lines("[Eval] summary")) == 1


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


def test_scenario_chunks_cut_in_order() -> None:
    assert case_chunks(["a", "b", "c", "d", "e"], 2) == [
        ["a", "b"],
        ["c", "d"],
        ["e"],
    ]


def test_scheduled_run_executes_as_a_chord_after_commit(
    settings: Any, django_capture_on_commit_callbacks: Any, log_lines: Any
) -> None:
    settings.EVALS_CHUNK_SIZE = 2
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run = eval_run_create(
            suite_path=SHIPPED / "smoke.jsonl",
            profile="balanced",
            mode="thought_only",
            model="scripted",
        )

    run.refresh_from_db()
    assert len(callbacks) == 1
    assert (run.status, run.progress_done, run.verdict_passed) == (
        Run.Status.COMPLETED,
        5,
        True,
    )
    assert log_lines("[Eval] mode=") == ["[Eval] mode=thought_only"]
    assert len(log_lines("[Eval] scenario_run")) == 5
    assert len(log_lines("[Eval] summary")) == 1


def test_nothing_is_scheduled_when_the_suite_is_invalid(
    tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    suite = tmp_path / "broken.jsonl"
    suite.write_text("{}\n", encoding="utf-8")

    with (
        django_capture_on_commit_callbacks() as callbacks,
        pytest.raises(SuiteInvalid),
    ):
        eval_run_create(
            suite_path=suite, profile="balanced", mode="thought_only", model="baseline"
        )

    assert callbacks == []


def _smoke_run(suites: Path) -> Run:
    """A queued thought_only run of the smoke suite on its script."""
    return eval_run_create(
        suite_path=suites / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )


def test_script_edited_mid_run_fails_the_run(suites: Path, log_lines: Any) -> None:
    script = suites / "smoke.script.jsonl"
    run = _smoke_run(suites)
    old_sha = run.config["scriptSha256"]
    # Any byte counts, even a trailing blank line.
    script.write_text(script.read_text() + "\n")

    run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)

    run.refresh_from_db()
    assert (
        old_sha
        == hashlib.sha256((SHIPPED / "smoke.script.jsonl").read_bytes()).hexdigest()
    )
    assert (run.status, run.case_results.count()) == (Run.Status.FAILED, 0)
    assert run.error == (
        f"script {script} changed after the run started (sha256 {old_sha} -> "
        f"{sha256_of(script)}); start a new run"
    )
    assert log_lines("[Eval] run_failed") == [
        f"[Eval] run_failed run_id={run.run_id} reason=script_changed"
    ]


def test_results_are_committed_in_batches_with_progress(
    suites: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("evals.services.runs.recording.RECORD_BATCH", 2)
    run = _smoke_run(suites)
    seen: list[tuple[int, int]] = []

    run_chunk_execute(
        run_pk=run.pk,
        case_ids=SMOKE_IDS,
        on_progress=lambda done, total: seen.append((done, total)),
    )

    assert seen == [(2, 5), (4, 5), (5, 5)]


class SteppingClock:
    """``monotonic`` that moves ``step`` seconds per call."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def monotonic(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        # The clock stands still: one commit at the end of the chunk, not
        # one per RECORD_BATCH cases.
        (0.0, [(5, 5)]),
        # 1/8 s per reading (a binary fraction, so no rounding): a commit
        # once 0.2 s have passed since the last one, every second case.
        (0.125, [(2, 5), (4, 5), (5, 5)]),
    ],
)
def test_in_one_process_results_are_committed_by_time(
    suites: Path,
    monkeypatch: pytest.MonkeyPatch,
    step: float,
    expected: list[tuple[int, int]],
) -> None:
    monkeypatch.setattr("evals.services.runs.recording.RECORD_BATCH", 2)
    monkeypatch.setattr(
        "evals.services.runs.recording.time", SteppingClock(step), raising=True
    )
    run = _smoke_run(suites)
    seen: list[tuple[int, int]] = []

    run = run_execute(
        run=run, on_progress=lambda done, total: seen.append((done, total))
    )

    assert seen == expected
    assert (run.status, run.case_results.count()) == (Run.Status.COMPLETED, 5)


def test_in_one_process_a_batch_holds_at_most_the_in_process_count(
    suites: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("evals.services.runs.recording.IN_PROCESS_RECORD_BATCH", 2)
    monkeypatch.setattr("evals.services.runs.lifecycle.IN_PROCESS_RECORD_BATCH", 2)
    monkeypatch.setattr("evals.services.runs.recording.time", SteppingClock(0.0))
    run = _smoke_run(suites)
    seen: list[tuple[int, int]] = []

    run_execute(run=run, on_progress=lambda done, total: seen.append((done, total)))

    assert seen == [(2, 5), (4, 5), (5, 5)]


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


UPSTREAM = Path(__file__).resolve().parent / "core" / "upstream"


def test_the_upstream_idle_suite_runs_and_measures_as_upstream(
    suites: Path,
) -> None:
    # The upstream suite and a mixed script, through the whole harness: the
    # stored metrics equal what the reference harness computes for them.
    shutil.copy(UPSTREAM / "idle-v1.jsonl", suites / "upstream-idle.jsonl")
    script = suites / "upstream-idle.script.jsonl"
    shutil.copy(UPSTREAM / "idle-v1.mixed.script.jsonl", script)
    expected = json.loads((UPSTREAM / "idle-v1.mixed.expected.json").read_text())

    run = run_suite(suites / "upstream-idle.jsonl", script_path=script)

    assert (run.status, run.total_cases) == (Run.Status.COMPLETED, 20)
    want = expected["metrics"]
    for name in (
        "action_rate",
        "grounding_pass_rate",
        "repetition_rate",
        "compulsion_count",
        "inertia_count",
        "hallucination_count",
        "anchoring_ratio_mean",
        "latency_p50_ms",
        "latency_p95_ms",
    ):
        assert run.metrics[name] == pytest.approx(want[name]), name
    passed = {c.case_id: c.passed for c in run.case_results.all()}
    assert passed == {s["scenario_id"]: s["pass"] for s in expected["scenarios"]}
