"""The Celery app: configured from Django settings, logging through LOGGING."""

from __future__ import annotations

import logging
import logging.config
import os
import time
from typing import Any

from celery import Celery
from celery.signals import setup_logging, worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

logger = logging.getLogger(__name__)

app = Celery("evalsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def configure_logging(**kwargs: Any) -> None:
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@app.on_after_configure.connect
def ensure_broker_folders(sender: Celery, **kwargs: Any) -> None:
    """The embedded filesystem broker needs its folders before the first send."""
    options = sender.conf.broker_transport_options or {}
    for key in (
        "data_folder_in",
        "data_folder_out",
        "control_folder",
        "inflight_folder",
    ):
        if options.get(key):
            os.makedirs(options[key], exist_ok=True)
    backend = sender.conf.result_backend or ""
    if backend.startswith("file://"):
        os.makedirs(backend.removeprefix("file://"), exist_ok=True)


@worker_init.connect
def cap_broker_waits(**kwargs: Any) -> None:
    """The worker's loop gets control back after each poll of the embedded
    broker (``evalsite.transport.Transport.drain_events``)."""
    from django.conf import settings

    if settings.CELERY_BROKER_IS_EMBEDDED:
        from evalsite.transport import Transport

        options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
        Transport.drain_cap_s = float(options["polling_interval"])


@worker_init.connect
def require_database(**kwargs: Any) -> None:
    """A worker never reports ready without a migrated database.

    It waits up to ``WORKER_DATABASE_WAIT_S`` (a database starting beside it),
    then exits non-zero with the reason instead of taking tasks it would
    only fail.
    """
    from django.conf import settings

    from evalsite.services import database_reachable

    deadline = time.monotonic() + settings.WORKER_DATABASE_WAIT_S
    while True:
        problem = database_reachable()
        if problem is None:
            return
        if time.monotonic() >= deadline:
            logger.error("[Ops] worker_refused reason=database_unavailable")
            raise SystemExit(f"worker: the database is not available: {problem}")
        logger.warning("[Ops] worker_waiting reason=database_unavailable")
        time.sleep(1)
