"""A shared cache (``CACHE_URL``) that dies takes nothing with it: the API-key
rate limit fails open, counted and logged, and reads keep working. A real
``redis-server`` is started for the test and killed by pid."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.core.cache import cache
from rest_framework.test import APIClient

from evalsite.cachesafe import cache_failures, cache_settings
from tests.throwaway import RedisServer, redis_server

pytestmark = [pytest.mark.redis, pytest.mark.django_db]


@pytest.fixture
def cache_redis(settings: Any, tmp_path: Path) -> Iterator[RedisServer]:
    with redis_server(tmp_path) as server:
        settings.CACHES = {"default": cache_settings(server.url(), timeout_s=1)}
        yield server
    cache.close()


def test_a_dead_cache_lets_keyed_reads_through_counted_and_logged(
    agent_client: APIClient, cache_redis: RedisServer, settings: Any, log_lines: Any
) -> None:
    settings.API_KEY_THROTTLE_RATE = "100/minute"
    assert agent_client.get("/api/whoami").status_code == 200
    assert redis.Redis.from_url(cache_redis.url()).keys("*throttle_api_key_*")
    before = cache_failures()

    cache_redis.kill()
    started = time.monotonic()
    answers = [agent_client.get("/api/evals/runs") for _ in range(3)]
    elapsed = time.monotonic() - started

    assert [a.status_code for a in answers] == [200, 200, 200]
    assert elapsed < 3, elapsed
    assert cache_failures() == before + 3
    assert log_lines("[Ops] cache_unavailable") == [
        f"[Ops] cache_unavailable what=api_key_throttle error=ConnectionError "
        f"failures={before + n}"
        for n in (1, 2, 3)
    ]


def test_the_limit_still_counts_while_the_cache_is_up(
    agent_client: APIClient, cache_redis: RedisServer, settings: Any
) -> None:
    settings.API_KEY_THROTTLE_RATE = "2/minute"
    answers = [agent_client.get("/api/whoami") for _ in range(3)]

    assert [a.status_code for a in answers] == [200, 200, 429]
