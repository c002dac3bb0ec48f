"""A broker or database that is down gets a fast 503, never a 500 or a hang."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.models import Run

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "evals" / "suites"
# Nothing listens on the discard port of the loopback: connections are refused.
DEAD_REDIS = "redis://127.0.0.1:9/0"


@pytest.fixture
def broker_down(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The real Celery app publishing to a Redis that refuses connections."""
    from evalsite.celery import app

    # Celery reads CELERY_BROKER_URL from the environment before its config.
    monkeypatch.setenv("CELERY_BROKER_URL", DEAD_REDIS)
    # The app reads its configuration from the Django settings namespace.
    keys = ("CELERY_BROKER_URL", "CELERY_BROKER_TRANSPORT", "CELERY_TASK_ALWAYS_EAGER")
    # Overrides live in app.conf.changes and win over the Django settings:
    # restore exactly what was there (usually nothing) afterwards.
    saved = {key: app.conf.changes[key] for key in keys if key in app.conf.changes}
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.update(dict(zip(keys, (DEAD_REDIS, None, False), strict=True)))
    # Pools are cached per broker URL: drop the app's references so it picks
    # the dead broker's, and back to the real ones after.
    app._pool = None
    app.amqp._producer_pool = None
    settings.CELERY_BROKER_IS_EMBEDDED = False
    try:
        yield
    finally:
        app._pool = None
        app.amqp._producer_pool = None
        for key in keys:
            app.conf.changes.pop(key, None)
        app.conf.update(saved)


@pytest.fixture
def suites(settings: Any, tmp_path: Path) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    shutil.copytree(SHIPPED, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"


def test_run_create_answers_503_fast_and_stores_no_run(
    transactional_db: Any, owner: Any, broker_down: None, suites: None, log_lines: Any
) -> None:
    client = APIClient()
    client.force_login(owner)
    started = time.monotonic()
    response = client.post(
        "/api/evals/runs",
        {
            "suite": "smoke",
            "profile": "balanced",
            "mode": "thought_only",
            "model": "scripted",
        },
        format="json",
    )
    elapsed = time.monotonic() - started

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["error"]["code"] == "broker_unavailable"
    assert elapsed < 5, elapsed
    # Nothing stored: the error answer means there is no run (a retry starts
    # one), and the sweeper finds nothing to start behind the client's back.
    assert Run.objects.count() == 0
    assert "[Ops] broker_unavailable what=eval_run error=OperationalError" in (
        log_lines("[Ops]")
    )


def test_healthz_reports_a_broker_that_is_down(
    db: Any, client: Any, broker_down: None
) -> None:
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert (body["ok"], body["brokerOk"], body["databaseOk"]) == (False, False, True)


PROBE = """
import json
from django.test import Client
client = Client(HTTP_HOST="localhost")
answers = {
    "api": client.get("/api/evals/runs", HTTP_AUTHORIZATION="Bearer es_0011_x"),
    "page": client.post("/accounts/login/", {"username": "a", "password": "b"}),
    "healthz": client.get("/healthz"),
}
print(json.dumps({k: [r.status_code, r.get("Retry-After"), r.content.decode()[:300]]
                  for k, r in answers.items()}))
"""


def test_a_lost_database_answers_503_everywhere() -> None:
    """A real connection failure (nothing listens on the port), in a fresh
    process: the API, pages and /healthz answer 503, never a 500."""
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PROBE],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
            "DJANGO_DEBUG": "true",
            "DATABASE_URL": "postgres://evalsite@127.0.0.1:9/evalsite",
            "LOG_LEVEL": "ERROR",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])

    assert answers["api"][:2] == [503, "5"]
    assert json.loads(answers["api"][2])["error"]["code"] == "unavailable"
    assert answers["page"][:2] == [503, "5"]
    assert "Temporarily unavailable" in answers["page"][2]
    assert answers["healthz"][0] == 503
    assert json.loads(answers["healthz"][2])["databaseOk"] is False


def test_a_poke_with_the_broker_down_is_kept_for_the_next_tick(
    transactional_db: Any, agent_client: APIClient, agent: Any, broker_down: None
) -> None:
    from stream.models import KeepAliveState

    response = agent_client.post("/api/cognitive-stream/poke")

    assert response.status_code == 202
    assert KeepAliveState.objects.get(agent=agent).poke_pending is True
