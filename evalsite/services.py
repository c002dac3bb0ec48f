"""Use cases of the service itself: heartbeats and health."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.utils import timezone

from core.errors import ServiceUnavailable
from evalsite.celery import app
from evalsite.database_health import database_reachable
from evalsite.dispatch import chord_send, signature
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
    broker_ok: bool
    worker_last_seen_s: float | None

    @property
    def ok(self) -> bool:
        return self.database_ok and self.broker_ok


def broker_reachable() -> str | None:
    """None when a message could be published now, else the reason.

    Redis: a PING over a fresh connection, bounded by the broker connect
    timeout. The embedded broker: its queue folder is writable, made first
    if it is missing (as the first send would), so a process that has sent
    nothing yet is not reported down.
    """
    if settings.CELERY_BROKER_IS_EMBEDDED:
        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]
        with contextlib.suppress(OSError):  # answered below: not writable
            os.makedirs(folder, exist_ok=True)
        if os.path.isdir(folder) and os.access(folder, os.W_OK):
            return None
        return "the embedded broker's queue folder is not writable"
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(
                max_retries=1,
                interval_start=0,
                timeout=settings.CELERY_BROKER_CONNECT_TIMEOUT_S,
            )
            client = getattr(conn.default_channel, "client", None)
            if client is not None:
                client.ping()
    except Exception as exc:  # health must answer, whatever the broker does
        return type(exc).__name__
    return None


BROKER_UNAVAILABLE = (
    "The task broker is not available right now, so the work was not queued. "
    "Retry in a few seconds."
)


def broker_errors() -> tuple[type[BaseException], ...]:
    """What publishing raises when the broker or the result backend (a
    chord's join) is unreachable."""
    from celery.exceptions import BackendError
    from kombu.exceptions import OperationalError as KombuOperationalError

    errors: tuple[type[BaseException], ...] = (
        KombuOperationalError,
        OSError,
        BackendError,
    )
    try:
        from redis.exceptions import RedisError
    except ImportError:  # pragma: no cover - redis is a dependency
        return errors
    return (*errors, RedisError)


def broker_send[T](send: Callable[[], T], *, what: str) -> T:
    """Run ``send`` (a publish); a broker that cannot be reached raises
    ``ServiceUnavailable`` (the API's 503) after the short connect timeout
    and retry policy of the settings, instead of hanging or a 500.
    Logs ``[Ops] broker_unavailable what=<what> error=<class>``."""
    try:
        return send()
    except Exception as exc:
        if not unreachable(exc):
            raise
        logger.error(
            "[Ops] broker_unavailable what=%s error=%s", what, type(exc).__name__
        )
        raise ServiceUnavailable(BROKER_UNAVAILABLE, code="broker_unavailable") from exc


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised because of, a broker or result
    backend that cannot be reached: the Redis result backend reports a lost
    connection as a ``RuntimeError`` raised from the connection error."""
    errors = broker_errors()
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, errors):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def health_get(*, now: datetime | None = None) -> Health:
    """The database, the broker and the last worker heartbeat, checked now."""
    now = now or timezone.now()
    database_problem = database_reachable()
    if database_problem is not None:
        logger.warning("[Ops] health_failed part=database reason=%s", database_problem)
    broker_problem = broker_reachable()
    if broker_problem is not None:
        logger.warning("[Ops] health_failed part=broker reason=%s", broker_problem)
    beat = (
        WorkerHeartbeat.objects.order_by("-last_seen_at").first()
        if database_problem is None
        else None
    )
    return Health(
        database=connection.vendor,
        database_ok=database_problem is None,
        broker="embedded" if settings.CELERY_BROKER_IS_EMBEDDED else "external",
        broker_ok=broker_problem is None,
        worker_last_seen_s=(now - beat.last_seen_at).total_seconds() if beat else None,
    )


SELFCHECK_PARTS = 4


def selfcheck_start(*, token: str, queue: str | None = None) -> None:
    """Fan out a chord of ``SELFCHECK_PARTS`` tasks whose callback writes a row.

    Proves, on the configured broker and result backend, that a worker runs
    tasks, that groups fan out and that chords join: ``selfcheck:<token>``
    appears in WorkerHeartbeat with ``beats`` = the sum of the parts.
    """
    options = {"queue": queue} if queue else {}
    parts = [
        signature(
            "evalsite.selfcheck_part",
            i,
            immutable=False,
            ignore_result=False,
            **options,
        )
        for i in range(1, SELFCHECK_PARTS + 1)
    ]
    chord_send(
        parts, signature("evalsite.selfcheck_done", token, immutable=False, **options)
    )


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
