"""The Redis cache that keeps one client per pool behaves as Django's: the
same values, the rate limit counts, a dead server fails open and a restarted
one is used again. A real ``redis-server`` is started for each test."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache, caches
from rest_framework.test import APIClient

from evalsite.cachesafe import cache_failures, cache_settings
from evalsite.rediscache import KeptClientRedisCache, KeptClientRedisCacheClient
from tests.throwaway import RedisServer, redis_server

pytestmark = [pytest.mark.redis, pytest.mark.django_db]

BACKEND = "evalsite.rediscache.KeptClientRedisCache"


def kept_settings(url: str) -> dict[str, Any]:
    return {**cache_settings(url, timeout_s=1), "BACKEND": BACKEND}


@pytest.fixture
def kept_redis(settings: Any, tmp_path: Path) -> Iterator[RedisServer]:
    with redis_server(tmp_path) as server:
        settings.CACHES = {"default": kept_settings(server.url())}
        yield server
    cache.close()


def test_the_backend_is_the_configured_cache(kept_redis: RedisServer) -> None:
    assert isinstance(caches["default"], KeptClientRedisCache)


def test_values_round_trip_as_with_django_s_backend(kept_redis: RedisServer) -> None:
    cache.set("a", {"n": [1, 2.5, "x"]}, 30)
    assert cache.get("a") == {"n": [1, 2.5, "x"]}
    assert cache.get("missing", "default") == "default"
    assert cache.add("a", 1, 30) is False
    assert cache.add("b", 1, 30) is True
    assert cache.incr("b", 4) == 5
    cache.delete("a")
    assert cache.get("a") is None
    assert cache.get_many(["b", "c"]) == {"b": 5}


def test_every_call_uses_the_same_client_object(kept_redis: RedisServer) -> None:
    client = KeptClientRedisCacheClient([kept_redis.url()])
    first = client.get_client(write=True)
    assert client.get_client(write=True) is first
    assert client.get_client("k") is first  # one server: reads use it too


def test_with_several_servers_reads_still_pick_among_them(tmp_path: Path) -> None:
    with redis_server(tmp_path / "a") as a, redis_server(tmp_path / "b") as b:
        client = KeptClientRedisCacheClient([a.url(), b.url()])
        written = client.get_client(write=True)
        assert written.connection_pool.connection_kwargs["port"] == a.port
        read = client.get_client("k")
        assert read.connection_pool.connection_kwargs["port"] == b.port


def test_threads_share_the_client_and_each_gets_its_own_answers(
    kept_redis: RedisServer,
) -> None:
    errors: list[str] = []

    def work(n: int) -> None:
        for i in range(50):
            cache.set(f"t{n}-{i}", n * 1000 + i, 30)
            if cache.get(f"t{n}-{i}") != n * 1000 + i:
                errors.append(f"{n}-{i}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_the_rate_limit_counts_through_it(
    agent_client: APIClient, kept_redis: RedisServer, settings: Any
) -> None:
    settings.API_KEY_THROTTLE_RATE = "2/minute"
    answers = [agent_client.get("/api/whoami") for _ in range(3)]

    assert [a.status_code for a in answers] == [200, 200, 429]


def test_a_dead_server_fails_open_counted(
    agent_client: APIClient, settings: Any, tmp_path: Path
) -> None:
    settings.API_KEY_THROTTLE_RATE = "1000/minute"
    with redis_server(tmp_path / "first") as server:
        settings.CACHES = {"default": kept_settings(server.url())}
        assert agent_client.get("/api/whoami").status_code == 200
        server.kill()
        before = cache_failures()
        assert agent_client.get("/api/whoami").status_code == 200
        assert cache_failures() == before + 1
    cache.close()
