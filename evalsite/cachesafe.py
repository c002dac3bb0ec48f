"""The shared cache (``CACHE_URL``) may go away without taking requests with it.

The cache only holds counters (the API-key rate limit, failed logins), so a
cache that cannot be reached fails open: the request goes on uncounted, the
failure is logged (``[Ops] cache_unavailable what=<what> error=<class>
failures=<n>``, ``n`` counting every failure of this process) and nothing
answers 500. Redis connections give up after ``CACHE_TIMEOUT_S`` and are not
retried, so a dead or unreachable Redis costs a request at most that long.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_failures = 0


def cache_errors() -> tuple[type[BaseException], ...]:
    """What a cache call raises when its server cannot be reached."""
    from redis.exceptions import RedisError

    return (RedisError, OSError)


def cache_failed_open(*, what: str, exc: BaseException) -> int:
    """Count and log a cache failure that was let through; returns the
    number of such failures in this process so far."""
    global _failures
    with _lock:
        _failures += 1
        failures = _failures
    logger.error(
        "[Ops] cache_unavailable what=%s error=%s failures=%d",
        what,
        type(exc).__name__,
        failures,
    )
    return failures


def cache_failures() -> int:
    """How many cache failures this process let through."""
    return _failures


def cache_settings(url: str, *, timeout_s: float) -> dict[str, Any]:
    """``CACHES["default"]``: Redis at ``url`` with connect and read timeouts
    of ``timeout_s`` and no retry, else (no URL) a per-process memory cache."""
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        "OPTIONS": {
            "socket_connect_timeout": timeout_s,
            "socket_timeout": timeout_s,
            "retry": Retry(NoBackoff(), 0),
        },
    }
