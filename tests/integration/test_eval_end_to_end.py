"""Eval runs fanned out to a real Celery worker process.

On the embedded default this exercises the filesystem broker and SQLite; in
CI (CELERY_BROKER_URL=redis://..., DATABASE_URL=postgres://...) Redis and
Postgres. The worker writes the bundle where the run says (its
``artifacts_dir`` is fixed when the run is created).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from evals.models import Run
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_chunk_execute, run_enqueue

pytestmark = pytest.mark.integration

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
SMOKE_IDS = [
    "smoke:stable-plains",
    "smoke:sheltered-night",
    "smoke:hunger-raw-mutton",
    "smoke:fox-at-dawn",
    "smoke:zombie-close",
]


@pytest.fixture(autouse=True)
def real_chord(settings: Any, tmp_path: Path) -> None:
    # Celery reads CELERY_TASK_ALWAYS_EAGER (True in test settings) before
    # app.conf.task_always_eager, so only this sends the chord to the worker.
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # Three chunks for five scenarios, so the chord really fans out.
    settings.EVALS_CHUNK_SIZE = 2
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"


def wait_finished(run: Run, worker: Any, timeout: float = 90.0) -> Run:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.completed_at is not None:
            return run
        time.sleep(0.3)
    pytest.fail(f"run {run.run_id} did not finish; worker log:\n{worker.log()}")


def wait_file(path: Path, timeout: float = 10.0) -> str:
    """The file's text once the worker has written it: the run's row is
    closed first and the executor's finished hook writes summary.json right
    after, so a poller can see the run completed a moment before the file."""
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return path.read_text()


def test_thought_only_run_on_a_real_worker(celery_worker_process: Any) -> None:
    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        queue=celery_worker_process.queue,
    )

    run = wait_finished(run, celery_worker_process)

    assert (run.status, run.verdict_passed, run.progress_done) == (
        Run.Status.COMPLETED,
        True,
        5,
    )
    assert sorted(run.case_results.values_list("case_id", flat=True)) == sorted(
        SMOKE_IDS
    )
    summary = json.loads(wait_file(Path(run.artifacts_dir) / "summary.json"))
    assert summary["run"]["status"] == "completed"
    # The PASS line is the worker's last for the run.
    log = celery_worker_process.log_once("[Eval] PASS ")
    assert log.count("[Eval] mode=thought_only") == 1
    # On SQLite a chunk may be retried on "database is locked" and run its
    # unrecorded scenarios again; every scenario ran, none was stored twice.
    assert all(f"[Eval] scenario_run id={sid} " in log for sid in SMOKE_IDS)
    assert (
        "[Eval] summary action_rate=0.4 grounding_pass_rate=1 repetition_rate=0 "
        "compulsion_proxy=0 latency_p95_ms=455.1"
    ) in log
    assert "[Eval] PASS properties_satisfied=true action_rate_may_be_zero=true" in log


def test_worker_resumes_a_half_done_run_without_redoing_scenarios(
    celery_worker_process: Any,
) -> None:
    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="minimal",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )
    run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS[:2])
    done_before = dict(run.case_results.values_list("case_id", "pk"))

    run_enqueue(run=run, queue=celery_worker_process.queue)
    run = wait_finished(run, celery_worker_process)

    log = celery_worker_process.log()
    assert [sid for sid in SMOKE_IDS if f"scenario_run id={sid} " in log] == (
        SMOKE_IDS[2:]
    )
    assert (
        dict(
            run.case_results.filter(case_id__in=SMOKE_IDS[:2]).values_list(
                "case_id", "pk"
            )
        )
        == done_before
    )
    assert (run.status, run.progress_done) == (Run.Status.COMPLETED, 5)


def test_end_to_end_run_on_a_real_worker(
    celery_worker_process: Any, owner: Any
) -> None:
    from stream.models import Task, Thought

    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="end_to_end",
        model="scripted",
        user=owner,
        queue=celery_worker_process.queue,
    )

    run = wait_finished(run, celery_worker_process)

    assert (run.status, run.verdict_passed) == (Run.Status.COMPLETED, True)
    assert run.metrics["tasks_created"] == 2
    tasks = {c.case_id: c.details["tasksCreated"] for c in run.case_results.all()}
    # PA-D3: the three goal-less scenarios created no task.
    assert tasks == {
        "smoke:stable-plains": 0,
        "smoke:sheltered-night": 0,
        "smoke:hunger-raw-mutton": 1,
        "smoke:fox-at-dawn": 0,
        "smoke:zombie-close": 1,
    }
    assert Task.objects.filter(agent__name=run.config["agent"]).count() == 2
    log = celery_worker_process.log_once("[Eval] PASS ")
    assert log.count("[Eval] mode=end_to_end planning_ack=true") == 1
    assert (
        "[Thought-to-task] ack batch size=1 fetched=1 converted=1 skipped=0 errors=0"
    ) in log
    # Publish, poll and record commit together: retried chunks never publish
    # a scenario twice.
    assert Thought.objects.filter(agent__name=run.config["agent"]).count() == 5
