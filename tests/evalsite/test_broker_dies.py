"""A Redis broker and result backend that die (a throwaway ``redis-server``
killed by pid): starting an eval run or a gridworld batch answers 503 within
a second and stores nothing, never a 500 after the result backend's retries."""

from __future__ import annotations

import gc
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.models import Run, RunIdempotencyKey
from gridworld.models import EpisodeBatch
from tests.celery_broker import celery_pointed
from tests.throwaway import RedisServer, redis_server

pytestmark = [
    pytest.mark.redis,
    pytest.mark.integration,
    # Celery's result objects unsubscribe from the dead Redis when collected.
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    # Celery's Redis result backend calls redis-py's deprecated setex.
    pytest.mark.filterwarnings("ignore:Call to deprecated setex:DeprecationWarning"),
]

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
RUN = {
    "suite": "smoke",
    "profile": "balanced",
    "mode": "thought_only",
    "model": "scripted",
}
BATCH = {"map": "maze", "episodes": 2, "seed": 7, "lane_size": 2}


@pytest.fixture
def redis_pair(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    """Two throwaway servers: the broker's and the result backend's."""
    with (
        redis_server(tmp_path / "a") as broker,
        redis_server(tmp_path / "b") as backend,
    ):
        yield broker, backend


@pytest.fixture
def dead_redis(
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    redis_pair: tuple[RedisServer, RedisServer],
) -> Iterator[tuple[RedisServer, RedisServer]]:
    """The real Celery app on a Redis broker and a Redis result backend
    (two servers, so a test can kill either, or both, by pid)."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_IS_EMBEDDED = False
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    shutil.copytree(SHIPPED, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"
    broker, backend = redis_pair
    try:
        with celery_pointed(monkeypatch) as point:
            point(broker.url(), backend.url())
            yield redis_pair
    finally:
        # Collect Celery's result objects of the dead Redis now, while this
        # module's warning filter applies, not during a later test.
        gc.collect()


def started(client: APIClient, path: str, body: dict[str, Any]) -> tuple[Any, float]:
    began = time.monotonic()
    response = client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    return response, time.monotonic() - began


def assert_refused_fast(response: Any, elapsed: float) -> None:
    assert response.status_code == 503, response.content
    assert response.json()["error"]["code"] == "broker_unavailable"
    assert response["Retry-After"] == "5"
    assert elapsed < 2, elapsed


@pytest.fixture
def client(owner: Any) -> APIClient:
    api = APIClient()
    api.force_login(owner)
    return api


@pytest.mark.parametrize("killed", ["both", "result backend"])
def test_a_run_started_on_a_dead_redis_answers_503_fast_and_stores_nothing(
    transactional_db: Any,
    client: APIClient,
    dead_redis: tuple[RedisServer, RedisServer],
    killed: str,
    log_lines: Any,
) -> None:
    broker, backend = dead_redis
    # Up first, as in production: the web process holds live connections.
    assert client.post("/api/evals/runs", RUN, format="json").status_code == 202
    Run.objects.all().delete()
    backend.kill()
    if killed == "both":
        broker.kill()

    response, elapsed = started(client, "/api/evals/runs", RUN)

    assert_refused_fast(response, elapsed)
    assert Run.objects.count() == 0
    assert RunIdempotencyKey.objects.count() == 0
    [discarded] = log_lines("[Eval] run_discarded")
    assert discarded.endswith(" reason=broker_unavailable")


def test_a_gridworld_batch_started_on_a_dead_redis_answers_503_and_stores_nothing(
    transactional_db: Any,
    client: APIClient,
    dead_redis: tuple[RedisServer, RedisServer],
) -> None:
    for server in dead_redis:
        server.kill()

    response, elapsed = started(client, "/api/gridworld/batches", BATCH)

    assert_refused_fast(response, elapsed)
    assert Run.objects.count() == 0
    assert EpisodeBatch.objects.count() == 0
