"""Gridworld episode batches fanned out to a real Celery worker process.

On the embedded default: the filesystem broker and SQLite; in CI Redis and
Postgres. The chord of chunks runs on the worker; every episode is stored
once and its receipt replays in this process byte for byte.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from evals.models import Run
from gridworld.core.replay import replay_verify
from gridworld.models import Episode
from gridworld.services.batches import batch_create
from gridworld.services.episodes import episode_receipt

pytestmark = pytest.mark.integration


def test_batch_runs_on_a_real_worker_and_its_receipts_replay(
    celery_worker_process: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.EVALS_CHUNK_SIZE = 10  # four chunks for 40 episodes
    batch = batch_create(
        config={"map": "maze", "episodes": 40, "seed": 11, "lane_size": 10},
        queue=celery_worker_process.queue,
    )
    run = batch.run
    deadline = time.monotonic() + 90
    while run.completed_at is None and time.monotonic() < deadline:
        time.sleep(0.3)
        run.refresh_from_db()
    assert run.completed_at is not None, celery_worker_process.log()
    assert (run.status, run.verdict_passed, run.progress_done) == (
        Run.Status.COMPLETED,
        True,
        40,
    )
    assert run.metrics["safety_violations"] == 0
    assert Episode.objects.filter(batch=batch).count() == 40
    assert "[Gridworld] batch_finished" in celery_worker_process.log_once(
        "[Gridworld] batch_finished"
    )
    for episode in Episode.objects.filter(batch=batch, index__in=[0, 17, 39]):
        assert replay_verify(episode_receipt(episode)).ok
