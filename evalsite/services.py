"""Use cases of the service itself: heartbeats and health."""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.utils import timezone

from evalsite.models import WorkerHeartbeat

logger = logging.getLogger(__name__)


def heartbeat_record(*, source: str, now: datetime | None = None) -> WorkerHeartbeat:
    """Upsert the heartbeat row of ``source``; safe to run any number of times."""
    now = now or timezone.now()
    heartbeat, created = WorkerHeartbeat.objects.get_or_create(
        source=source,
        defaults={
            "hostname": socket.gethostname(),
            "pid": os.getpid(),
            "last_seen_at": now,
            "beats": 1,
        },
    )
    if not created:
        WorkerHeartbeat.objects.filter(pk=heartbeat.pk).update(
            hostname=socket.gethostname(),
            pid=os.getpid(),
            last_seen_at=now,
            beats=F("beats") + 1,
        )
        heartbeat.refresh_from_db()
    logger.debug("[Ops] heartbeat source=%s beats=%s", source, heartbeat.beats)
    return heartbeat


@dataclass(frozen=True, slots=True)
class Health:
    database: str
    database_ok: bool
    broker: str
    worker_last_seen_s: float | None

    @property
    def ok(self) -> bool:
        return self.database_ok


def health_get(*, now: datetime | None = None) -> Health:
    now = now or timezone.now()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        database_ok = True
    except Exception:  # health must answer, whatever the database does
        logger.exception("[Ops] health database check failed")
        database_ok = False
    beat = (
        WorkerHeartbeat.objects.order_by("-last_seen_at").first()
        if database_ok
        else None
    )
    broker = "embedded" if settings.CELERY_BROKER_IS_EMBEDDED else "external"
    return Health(
        database=connection.vendor,
        database_ok=database_ok,
        broker=broker,
        worker_last_seen_s=(now - beat.last_seen_at).total_seconds() if beat else None,
    )


SELFCHECK_PARTS = 4


def selfcheck_start(*, token: str, queue: str | None = None) -> None:
    """Fan out a chord of ``SELFCHECK_PARTS`` tasks whose callback writes a row.

    Proves, on the configured broker and result backend, that a worker runs
    tasks, that groups fan out and that chords join: ``selfcheck:<token>``
    appears in WorkerHeartbeat with ``beats`` = the sum of the parts.
    """
    from celery import chord

    from evalsite.tasks import selfcheck_done, selfcheck_part

    options = {"queue": queue} if queue else {}
    parts = [
        selfcheck_part.s(i).set(ignore_result=False, **options)
        for i in range(1, SELFCHECK_PARTS + 1)
    ]
    chord(parts)(selfcheck_done.s(token).set(**options))


def selfcheck_expected_total() -> int:
    return SELFCHECK_PARTS * (SELFCHECK_PARTS + 1) // 2


def selfcheck_record(*, token: str, results: list[int]) -> None:
    WorkerHeartbeat.objects.update_or_create(
        source=f"selfcheck:{token}"[:64],
        defaults={
            "hostname": socket.gethostname(),
            "pid": os.getpid(),
            "last_seen_at": timezone.now(),
            "beats": sum(results),
        },
    )
    logger.info("[Ops] selfcheck_done token=%s total=%s", token, sum(results))
