"""Real Celery worker processes against the configured broker and test DB."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
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

    def log_once(self, text: str, timeout: float = 10.0) -> str:
        """The log once ``text`` is in it (or as it is after ``timeout``, for
        the caller's assertion to show). A run's row is closed before the
        worker writes its closing lines, so a poller that saw it completed
        can read the log a moment before they land."""
        deadline = time.monotonic() + timeout
        log = self.log()
        while text not in log and time.monotonic() < deadline:
            time.sleep(0.05)
            log = self.log()
        return log

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once, as a machine
        losing power would: nothing gets to acknowledge or requeue."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=15)

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=15)


WorkerFactory = Callable[..., Worker]


@pytest.fixture
def worker_factory(
    transactional_db: Any, tmp_path: Path, settings: Any
) -> Iterator[WorkerFactory]:
    """Starts real `celery worker` processes on the test database; each call
    starts one more (same queue when given), with extra environment."""
    from evalsite.celery import app

    workers: list[Worker] = []

    def start(
        queue: str | None = None,
        *,
        env: dict[str, str] | None = None,
        concurrency: int = 2,
        wait_ready: bool = True,
    ) -> Worker:
        queue = queue or f"itest-{secrets.token_hex(4)}"
        full_env = dict(os.environ)
        full_env.update(
            DJANGO_SETTINGS_MODULE="evalsite.settings",
            DJANGO_DEBUG="true",
            DATABASE_URL=database_url_of_test_db(),
            CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
            EVALSITE_VAR_DIR=str(settings.VAR_DIR),
            PYTHONUNBUFFERED="1",
        )
        full_env.update(env or {})
        log_path = tmp_path / f"worker-{len(workers)}.log"
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
            str(concurrency),
            "-l",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"{queue}-{len(workers)}@%h",
        ]
        with log_path.open("w") as log:
            process = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=full_env,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
        worker = Worker(queue=queue, process=process, log_path=log_path)
        workers.append(worker)
        if wait_ready:
            deadline = time.monotonic() + 30
            while "ready." not in worker.log():
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"worker did not start:\n{worker.log()}")
                time.sleep(0.1)
        return worker

    # Celery reads CELERY_TASK_ALWAYS_EAGER from the Django settings: turn it
    # off there too, or tasks would run in this process instead of the worker.
    settings.CELERY_TASK_ALWAYS_EAGER = False
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield start
    finally:
        app.conf.task_always_eager = previous
        for worker in workers:
            worker.stop()


@pytest.fixture
def celery_worker_process(worker_factory: WorkerFactory) -> Worker:
    """A real `celery worker` on a private queue, using the test database."""
    return worker_factory()
