"""The real Celery app pointed at a throwaway Redis for one test.

``celery_pointed(monkeypatch)`` yields ``point(broker_url, backend_url=None)``:
after a call the app publishes to ``broker_url`` (not eagerly), and keeps
its results at ``backend_url`` when one is given. Each call drops the app's
pooled connections, so a test may point it again (at a server started
later). On exit the app's configuration is restored and its pools dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

KEYS = (
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "CELERY_BROKER_TRANSPORT",
    "CELERY_TASK_ALWAYS_EAGER",
)


@contextmanager
def celery_pointed(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[..., None]]:
    from evalsite.celery import app

    saved = {key: app.conf.changes[key] for key in KEYS if key in app.conf.changes}

    def reset() -> None:
        app._pool = None
        app.amqp._producer_pool = None
        app._local.__dict__.pop("backend", None)

    def point(broker_url: str, backend_url: str | None = None) -> None:
        # Celery reads CELERY_BROKER_URL from the environment first.
        monkeypatch.setenv("CELERY_BROKER_URL", broker_url)
        changes: dict[str, object] = {
            "CELERY_BROKER_URL": broker_url,
            "CELERY_TASK_ALWAYS_EAGER": False,
        }
        if backend_url is not None:
            changes["CELERY_RESULT_BACKEND"] = backend_url
            changes["CELERY_BROKER_TRANSPORT"] = None
        app.conf.update(changes)
        reset()

    try:
        yield point
    finally:
        for key in KEYS:
            app.conf.changes.pop(key, None)
        app.conf.update(saved)
        reset()
