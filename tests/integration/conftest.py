"""Real Celery worker processes against the configured broker and test DB."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url_of_test_db() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    host = s.get("HOST") or "127.0.0.1"
    port = s.get("PORT") or 5432
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@{host}:{port}/{s['NAME']}"


@dataclass
class Worker:
    queue: str
    process: subprocess.Popen[str]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture
def celery_worker_process(
    transactional_db: Any, tmp_path: Path, settings: Any
) -> Iterator[Worker]:
    """A real `celery worker` on a private queue, using the test database."""
    from evalsite.celery import app

    queue = f"itest-{secrets.token_hex(4)}"
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        DJANGO_DEBUG="true",
        DATABASE_URL=database_url_of_test_db(),
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        PYTHONUNBUFFERED="1",
    )
    log_path = tmp_path / "worker.log"
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "evalsite",
        "worker",
        "-Q",
        queue,
        "-c",
        "2",
        "-l",
        "INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"{queue}@%h",
    ]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True
        )
    # Celery reads CELERY_TASK_ALWAYS_EAGER from the Django settings: turn it
    # off there too, or tasks would run in this process instead of the worker.
    settings.CELERY_TASK_ALWAYS_EAGER = False
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        deadline = time.monotonic() + 30
        while "ready." not in log_path.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"worker did not start:\n{log_path.read_text()}")
            time.sleep(0.2)
        yield Worker(queue=queue, process=process, log_path=log_path)
    finally:
        app.conf.task_always_eager = previous
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
