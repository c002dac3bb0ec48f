"""A real worker process runs tasks that write to the database.

On the embedded default this exercises the filesystem broker; in CI
(CELERY_BROKER_URL=redis://..., DATABASE_URL=postgres://...) Redis and Postgres.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest

from evalsite.models import WorkerHeartbeat

pytestmark = pytest.mark.integration


def wait_for(predicate: Any, worker: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out; worker log:\n{worker.log()}")


def test_worker_runs_a_task_that_writes_to_the_database(
    celery_worker_process: Any,
) -> None:
    from evalsite.tasks import record_heartbeat

    source = f"itest-{secrets.token_hex(3)}"
    record_heartbeat.apply_async((source,), queue=celery_worker_process.queue)
    row = wait_for(
        lambda: WorkerHeartbeat.objects.filter(source=source).first(),
        celery_worker_process,
    )
    assert row.beats == 1
    assert row.pid != 0


def test_chord_fans_out_and_joins(celery_worker_process: Any) -> None:
    from evalsite.services import selfcheck_expected_total, selfcheck_start

    token = secrets.token_hex(4)
    selfcheck_start(token=token, queue=celery_worker_process.queue)
    row = wait_for(
        lambda: WorkerHeartbeat.objects.filter(source=f"selfcheck:{token}").first(),
        celery_worker_process,
    )
    assert row.beats == selfcheck_expected_total()


@pytest.mark.redis
@pytest.mark.postgres
def test_ci_runs_on_redis_and_postgres(celery_worker_process: Any) -> None:
    from django.conf import settings
    from django.db import connection

    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert connection.vendor == "postgresql"
    test_worker_runs_a_task_that_writes_to_the_database(celery_worker_process)


def test_worker_without_a_database_never_reports_ready(worker_factory: Any) -> None:
    worker = worker_factory(
        env={
            "DATABASE_URL": "postgres://evalsite@127.0.0.1:9/evalsite",
            "WORKER_DATABASE_WAIT_S": "1",
        },
        wait_ready=False,
    )

    assert worker.process.wait(timeout=60) != 0
    log = worker.log()
    assert "[Ops] worker_refused reason=database_unavailable" in log
    assert "ready." not in log
