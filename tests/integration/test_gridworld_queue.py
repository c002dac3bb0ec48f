"""Gridworld batches on a real Redis broker (a throwaway ``redis-server``, no
worker): a batch started through the REST API puts its chunks on the
``gridworld`` queue, a scenario run on ``runs``, and the stale-run sweeper
sends a gridworld batch's lost chunks to ``gridworld`` again."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from django.utils import timezone
from rest_framework.test import APIClient

from evals.models import Run
from evals.services.runs.sweeper import runs_sweep_stale
from evalsite.celery import QUEUE_NAMES
from tests.celery_broker import celery_pointed
from tests.throwaway import RedisServer, redis_server

pytestmark = [
    pytest.mark.redis,
    pytest.mark.integration,
    # Celery's Redis result backend calls redis-py's deprecated setex.
    pytest.mark.filterwarnings("ignore:Call to deprecated setex:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
BATCH = {"map": "maze", "episodes": 6, "seed": 7, "lane_size": 2}
RUN = {
    "suite": "smoke",
    "profile": "balanced",
    "mode": "thought_only",
    "model": "scripted",
}


@pytest.fixture
def broker(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RedisServer]:
    """The real Celery app publishing to a throwaway Redis (broker and result
    backend), nothing eager: sent messages stay in their queues' lists."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_IS_EMBEDDED = False
    settings.EVALS_CHUNK_SIZE = 2
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    shutil.copytree(SHIPPED, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"
    with redis_server(tmp_path / "redis") as server:
        try:
            with celery_pointed(monkeypatch) as point:
                point(server.url(), server.url(1))
                yield server
        finally:
            gc.collect()


def _held(server: RedisServer) -> dict[str, list[str]]:
    """Each queue's waiting messages, as task names."""
    import json

    conn = redis.Redis.from_url(server.url())
    held: dict[str, list[str]] = {}
    for name in QUEUE_NAMES:
        bodies = conn.lrange(name, 0, -1)
        held[name] = sorted(json.loads(body)["headers"]["task"] for body in bodies)
    conn.close()
    return held


def _drain(server: RedisServer) -> None:
    conn = redis.Redis.from_url(server.url())
    conn.delete(*QUEUE_NAMES)
    conn.close()


@pytest.fixture
def client(owner: Any) -> APIClient:
    api = APIClient()
    api.force_login(owner)
    return api


def test_a_batch_started_through_the_api_sends_its_chunks_to_gridworld(
    transactional_db: Any, client: APIClient, broker: RedisServer
) -> None:
    response = client.post("/api/gridworld/batches", BATCH, format="json")

    assert response.status_code == 202, response.content
    held = _held(broker)
    # Six episodes in chunks of two: three chunk messages; the finalize is
    # the chord's body, sent by the last chunk.
    assert held == {
        "runs": [],
        "gridworld": ["evals.run_chunk"] * 3,
        "keepalive": [],
        "maintenance": [],
        "celery": [],
    }


def test_a_scenario_run_started_through_the_api_still_goes_to_runs(
    transactional_db: Any, client: APIClient, broker: RedisServer
) -> None:
    response = client.post("/api/evals/runs", RUN, format="json")

    assert response.status_code == 202, response.content
    held = _held(broker)
    assert held["gridworld"] == []
    assert held["runs"] and set(held["runs"]) == {"evals.run_chunk"}


def test_the_sweeper_resends_a_stale_batch_to_gridworld(
    transactional_db: Any, client: APIClient, broker: RedisServer, settings: Any
) -> None:
    assert (
        client.post("/api/gridworld/batches", BATCH, format="json").status_code == 202
    )
    # The worker that took the chunks died with them: nothing is left queued
    # and the run has not moved for longer than the stale limit.
    _drain(broker)
    run = Run.objects.get()
    Run.objects.filter(pk=run.pk).update(
        updated_at=timezone.now() - timedelta(seconds=settings.EVALS_STALE_RUN_S + 5)
    )

    outcome = runs_sweep_stale()

    assert outcome.resumed == (run.run_id,)
    held = _held(broker)
    assert held["gridworld"] == ["evals.run_chunk"] * 3
    assert held["runs"] == []
