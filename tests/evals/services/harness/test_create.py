"""The eval harness service: a run's lifecycle (queued, resumed, redelivered
chunks, failures mid-run, finalize, the chord after commit) and how results
are committed in batches with progress."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from evals.core.suite_types import SuiteInvalid
from evals.models import Run
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import (
    case_chunks,
    run_chunk_execute,
    run_execute,
    run_finalize,
)
from tests.evals.harness_support import (
    SHIPPED,
    SMOKE_IDS,
    lines_of,
    run_suite,
    sha256_of,
    smoke_run,
    write_lines,
)

pytestmark = pytest.mark.django_db


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


def test_script_edited_mid_run_fails_the_run(suites: Path, log_lines: Any) -> None:
    script = suites / "smoke.script.jsonl"
    run = smoke_run(suites)
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
    run = smoke_run(suites)
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
    run = smoke_run(suites)
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
    run = smoke_run(suites)
    seen: list[tuple[int, int]] = []

    run_execute(run=run, on_progress=lambda done, total: seen.append((done, total)))

    assert seen == [(2, 5), (4, 5), (5, 5)]
