"""The stale-run sweeper resumes runs that stopped moving, then fails them."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db.models import Count
from django.utils import timezone

from evals.models import Run
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_chunk_execute
from evals.services.runs.sweeper import runs_sweep_stale

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[4] / "evals" / "suites"
SMOKE_IDS = [
    "smoke:stable-plains",
    "smoke:sheltered-night",
    "smoke:hunger-raw-mutton",
    "smoke:fox-at-dawn",
    "smoke:zombie-close",
]
STALE_S = 600


@pytest.fixture(autouse=True)
def artifacts(settings: Any, tmp_path: Path) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    settings.EVALS_CHUNK_SIZE = 2


def stalled_run(*, recorded: int, idle_s: int) -> Run:
    """A run whose chord was lost after ``recorded`` cases, idle since."""
    run = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )
    if recorded:
        run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS[:recorded])
    Run.objects.filter(pk=run.pk).update(
        updated_at=timezone.now() - timedelta(seconds=idle_s)
    )
    run.refresh_from_db()
    return run


def case_counts(run: Run) -> dict[str, int]:
    return dict(
        run.case_results.values_list("case_id")
        .annotate(n=Count("pk"))
        .values_list("case_id", "n")
    )


def test_a_stale_run_gets_its_missing_cases_and_completes(
    django_capture_on_commit_callbacks: Any, log_lines: Any
) -> None:
    run = stalled_run(recorded=2, idle_s=STALE_S + 1)

    with django_capture_on_commit_callbacks(execute=True):
        outcome = runs_sweep_stale(stale_after_s=STALE_S, max_resumes=3)

    run.refresh_from_db()
    assert outcome.resumed == (run.run_id,)
    assert (run.status, run.progress_done, run.config["resumes"]) == (
        Run.Status.COMPLETED,
        5,
        1,
    )
    assert case_counts(run) == dict.fromkeys(SMOKE_IDS, 1)
    assert f"[Eval] run_resumed run_id={run.run_id} resumes=1 missing=3" in (
        log_lines("[Eval] run_resumed")
    )


def test_a_run_never_sent_is_picked_up(django_capture_on_commit_callbacks: Any) -> None:
    run = stalled_run(recorded=0, idle_s=STALE_S + 1)
    assert run.status == Run.Status.QUEUED

    with django_capture_on_commit_callbacks(execute=True):
        runs_sweep_stale(stale_after_s=STALE_S, max_resumes=3)

    run.refresh_from_db()
    assert (run.status, run.progress_done) == (Run.Status.COMPLETED, 5)


def test_a_run_that_moves_is_left_alone(
    django_capture_on_commit_callbacks: Any,
) -> None:
    run = stalled_run(recorded=2, idle_s=STALE_S - 30)

    with django_capture_on_commit_callbacks(execute=True) as sent:
        outcome = runs_sweep_stale(stale_after_s=STALE_S, max_resumes=3)

    run.refresh_from_db()
    assert (outcome.resumed, outcome.failed, sent) == ((), (), [])
    assert (run.status, run.progress_done, run.config.get("resumes")) == (
        Run.Status.RUNNING,
        2,
        None,
    )


def test_a_run_still_stale_after_its_resumes_fails(log_lines: Any) -> None:
    run = stalled_run(recorded=2, idle_s=STALE_S + 1)
    Run.objects.filter(pk=run.pk).update(config=dict(run.config, resumes=3))

    outcome = runs_sweep_stale(stale_after_s=STALE_S, max_resumes=3)

    run.refresh_from_db()
    assert outcome.failed == (run.run_id,)
    assert (run.status, run.completed_at is not None) == (Run.Status.FAILED, True)
    assert run.error.startswith(f"no progress for {STALE_S} s after 3 resumes")
    assert f"[Eval] run_failed run_id={run.run_id} reason=stale" in log_lines(
        "[Eval] run_failed"
    )


def test_the_sweep_is_on_the_beat_schedule() -> None:
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["evals-sweep-stale-runs"]
    assert entry["task"] == "evals.sweep_stale_runs"
    assert settings.EVALS_STALE_RUN_S > settings.CELERY_VISIBILITY_TIMEOUT_S
