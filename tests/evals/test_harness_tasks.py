"""Celery tasks of the harness: each calls its service; retry, then give up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals.models import Run
from evals.services.harness.create import eval_run_create
from evals.tasks.runs import finalize_run, run_chunk

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
SMOKE_IDS = [
    "smoke:stable-plains",
    "smoke:sheltered-night",
    "smoke:hunger-raw-mutton",
    "smoke:fox-at-dawn",
    "smoke:zombie-close",
]


@pytest.fixture
def queued() -> Run:
    return eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )


def test_run_chunk_runs_the_chunk_through_the_service(queued: Run) -> None:
    recorded = run_chunk.apply(args=(queued.pk, SMOKE_IDS[:3])).get()

    queued.refresh_from_db()
    assert recorded == 3
    assert (queued.status, queued.progress_done) == (Run.Status.RUNNING, 3)
    assert sorted(queued.case_results.values_list("case_id", flat=True)) == sorted(
        SMOKE_IDS[:3]
    )


def test_finalize_run_closes_the_run(queued: Run) -> None:
    run_chunk.apply(args=(queued.pk, SMOKE_IDS)).get()

    finalize_run.apply(args=(queued.pk,)).get()

    queued.refresh_from_db()
    assert (queued.status, queued.verdict_passed) == (Run.Status.COMPLETED, True)


@pytest.fixture
def crashing(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def broken(**kwargs: Any) -> int:
        calls.append(kwargs["run_pk"])
        raise RuntimeError("disk full")

    monkeypatch.setattr("evals.services.runs.lifecycle.run_chunk_execute", broken)
    return calls


class Retried(Exception):
    pass


def run_with_retries(
    run_pk: int, retries: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, list[dict[str, Any]]]:
    """The task body as a worker runs it on its ``retries``-th attempt, with
    ``Task.retry`` recorded instead of re-sending the message."""
    asked: list[dict[str, Any]] = []

    def retry(**kwargs: Any) -> Retried:
        asked.append(kwargs)
        return Retried()

    monkeypatch.setattr(run_chunk, "retry", retry)
    run_chunk.push_request(retries=retries)
    try:
        return run_chunk.run(run_pk, SMOKE_IDS), asked
    except Retried:
        return Retried, asked
    finally:
        run_chunk.pop_request()


def test_a_crashing_chunk_is_retried(
    queued: Run,
    crashing: list[int],
    monkeypatch: pytest.MonkeyPatch,
    log_lines: Any,
) -> None:
    outcome, asked = run_with_retries(queued.pk, 1, monkeypatch)

    queued.refresh_from_db()
    assert outcome is Retried
    assert [type(a["exc"]) for a in asked] == [RuntimeError]
    assert asked[0]["countdown"] == 2
    assert queued.status == Run.Status.QUEUED
    assert log_lines("[Eval] chunk_retry") == [
        f"[Eval] chunk_retry run_pk={queued.pk} retries=1 error=RuntimeError"
    ]


def test_a_chunk_crashing_on_its_last_retry_fails_the_run(
    queued: Run,
    crashing: list[int],
    monkeypatch: pytest.MonkeyPatch,
    log_lines: Any,
) -> None:
    outcome, asked = run_with_retries(queued.pk, 2, monkeypatch)

    queued.refresh_from_db()
    assert (outcome, asked, crashing) == (0, [], [queued.pk])
    assert (queued.status, queued.error) == (
        Run.Status.FAILED,
        "chunk failed: disk full",
    )
    assert log_lines("[Eval] run_failed") == [
        f"[Eval] run_failed run_id={queued.run_id} reason=chunk_failed"
    ]
    assert queued.completed_at is not None
