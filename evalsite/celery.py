"""The Celery app: configured from Django settings, logging through LOGGING."""

from __future__ import annotations

import gc
import logging
import os
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import setup_logging, worker_init
from kombu import Exchange, Queue

from evalsite.logging import configure

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

logger = logging.getLogger(__name__)

app = Celery("evalsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


RESTORE_LOCK_EXPIRE_S = 30


def broker_transport_options(
    *,
    embedded: bool,
    broker_dir: Path,
    visibility_timeout_s: int,
    connect_timeout_s: int,
) -> dict[str, object]:
    """``CELERY_BROKER_TRANSPORT_OPTIONS`` for the embedded broker (folders
    under ``broker_dir``) or Redis.

    A message nobody acknowledged within ``visibility_timeout_s`` belongs to
    a dead worker and is delivered again; consumers look for such messages
    often enough that a redelivery waits little longer than that. On Redis a
    publish gives up after one retry, so the API answers 503 quickly when
    the broker is down, and the lock a consumer takes while it moves expired
    messages back (a few at a time, milliseconds) expires after
    ``RESTORE_LOCK_EXPIRE_S``: a worker killed while holding it (kombu's
    default expiry is five minutes) no longer holds up every other worker's
    recovery for that long.
    """
    recover_interval_s = max(1, min(10, visibility_timeout_s // 4))
    if embedded:
        return {
            "data_folder_in": str(broker_dir / "queue"),
            "data_folder_out": str(broker_dir / "queue"),
            "control_folder": str(broker_dir / "control"),
            "inflight_folder": str(broker_dir / "inflight"),
            "visibility_timeout": visibility_timeout_s,
            "recover_interval": recover_interval_s,
        }
    return {
        "visibility_timeout": visibility_timeout_s,
        "unacked_restore_interval": recover_interval_s,
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": RESTORE_LOCK_EXPIRE_S,
        "socket_connect_timeout": connect_timeout_s,
        "socket_timeout": 10,
        "retry_on_timeout": False,
        "max_retries": 1,
    }


# Every task's queue. A deployment gives each queue its own workers
# (docs/deploy.md), so a long eval run never holds up a webhook's delivery
# and a burst of gridworld episodes never delays the beat's sweeps; a worker
# started without ``-Q`` (the demo's) consumes every queue. A task missing
# here goes to ``DEFAULT_QUEUE`` (Celery's own ``celery.chord_unlock``, which
# only the embedded result backend sends).
DEFAULT_QUEUE = "celery"
TASK_QUEUES: dict[str, str] = {
    # Scenario runs: the chunks of an eval run and the join that closes it.
    # Gridworld batches are eval runs too: the run lifecycle sends a run's
    # tasks with the queue of its benchmark kind (``run_queue``), and an
    # explicit queue wins over this table.
    "evals.run_chunk": "runs",
    "evals.finalize_run": "runs",
    "evalsite.selfcheck_part": "runs",
    "evalsite.selfcheck_done": "runs",
    # GitHub webhook deliveries and the orchestrator rounds they start.
    "prkeepalive.process_delivery": "keepalive",
    "prkeepalive.start_round": "keepalive",
    # The beat's periodic work, what it fans out, retention and resends.
    "evalsite.record_heartbeat": "maintenance",
    "stream.keepalive_tick_all": "maintenance",
    "stream.keepalive_tick": "maintenance",
    "stream.prune_all": "maintenance",
    "stream.log_agency_counters": "maintenance",
    "stream.planning_poll_all": "maintenance",
    "stream.planning_poll": "maintenance",
    "evals.sweep_stale_runs": "maintenance",
    "prkeepalive.reconcile_all": "maintenance",
    "traces.prune_spans": "maintenance",
    "traces.sweep_score_exports": "maintenance",
    "traces.send_score_export": "maintenance",
    "stream.retention_sweep": "maintenance",
    "evals.retention_sweep": "maintenance",
    "stream.thought_partitions_ahead": "maintenance",
    "search.index_pass": "maintenance",
}
QUEUE_NAMES = ("runs", "gridworld", "keepalive", "maintenance", DEFAULT_QUEUE)

# The queue of an eval run's chunks and its finalize, by benchmark kind: a
# gridworld batch (thousands of short episodes) runs on the gridworld
# workers, every other kind on ``runs``. Read when the run is sent and when
# the stale-run sweeper sends what it lost, so both use the same queue.
RUN_KIND_QUEUES: dict[str, str] = {"gridworld": "gridworld"}


def run_queue(kind: str) -> str:
    """The queue that the tasks of a run of benchmark ``kind`` go to."""
    return RUN_KIND_QUEUES.get(str(kind), TASK_QUEUES["evals.run_chunk"])


def task_queues() -> tuple[Queue, ...]:
    """``CELERY_TASK_QUEUES``: each queue with its own direct exchange and
    routing key. Left to Celery, every queue would be bound to the default
    exchange under the default routing key, and on Redis a message sent to
    one would be copied into all of them."""
    return tuple(
        Queue(name, Exchange(name, type="direct"), routing_key=name)
        for name in QUEUE_NAMES
    )


def task_routes() -> dict[str, dict[str, str]]:
    """``CELERY_TASK_ROUTES``: ``TASK_QUEUES`` as Celery reads it."""
    return {name: {"queue": queue} for name, queue in TASK_QUEUES.items()}


def beat_schedule(
    *,
    heartbeat_s: int,
    keepalive_tick_s: int,
    agency_log_s: int,
    evals_sweep_s: int,
    planning_poll_s: int,
    prkeepalive_reconcile_s: int,
    trace_retention_s: int = 3600,
    retention_s: int = 3600,
    partitions_s: int = 86400,
    search_index_s: int = 10,
) -> dict[str, dict[str, Any]]:
    """``CELERY_BEAT_SCHEDULE``: every periodic task, at the intervals settings
    read (the stream's prune runs every 30 seconds, the spans' retention
    every hour)."""
    return {
        "heartbeat": {
            "task": "evalsite.record_heartbeat",
            "schedule": timedelta(seconds=heartbeat_s),
            "args": ("beat",),
        },
        "keepalive": {
            "task": "stream.keepalive_tick_all",
            "schedule": timedelta(seconds=keepalive_tick_s),
        },
        "stream-prune": {
            "task": "stream.prune_all",
            "schedule": timedelta(seconds=30),
        },
        "agency-counters-log": {
            "task": "stream.log_agency_counters",
            "schedule": timedelta(seconds=agency_log_s),
        },
        "evals-sweep-stale-runs": {
            "task": "evals.sweep_stale_runs",
            "schedule": timedelta(seconds=evals_sweep_s),
        },
        "planning-poll": {
            "task": "stream.planning_poll_all",
            "schedule": timedelta(seconds=planning_poll_s),
        },
        "prkeepalive-reconcile": {
            "task": "prkeepalive.reconcile_all",
            "schedule": timedelta(seconds=prkeepalive_reconcile_s),
        },
        "traces-prune-spans": {
            "task": "traces.prune_spans",
            "schedule": timedelta(seconds=trace_retention_s),
        },
        # Data that ages (docs/retention.md): old thoughts, events and
        # case results go in batches; the thoughts table's coming months'
        # partitions are made ahead, expired ones dropped (when partitioned).
        "stream-retention-sweep": {
            "task": "stream.retention_sweep",
            "schedule": timedelta(seconds=retention_s),
        },
        "evals-retention-sweep": {
            "task": "evals.retention_sweep",
            "schedule": timedelta(seconds=retention_s),
        },
        "stream-thought-partitions": {
            "task": "stream.thought_partitions_ahead",
            "schedule": timedelta(seconds=partitions_s),
        },
        # What was written since the last pass goes into the search index.
        "search-index": {
            "task": "search.index_pass",
            "schedule": timedelta(seconds=search_index_s),
        },
        # Pending score exports whose send was lost (traces.services.export_queue).
        "traces-score-export-sweep": {
            "task": "traces.sweep_score_exports",
            "schedule": timedelta(seconds=60),
        },
    }


@setup_logging.connect
def configure_logging(**kwargs: Any) -> None:
    from django.conf import settings

    configure(settings.LOGGING)


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
        # Imported here, not for a cycle: the transport's kombu modules
        # (15-35 ms) load in a worker or on a first send, not in every
        # process that imports the project.
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

    # Imported when the worker starts, not with this module: the Celery app
    # is loaded with the settings (``evalsite/__init__``), before Django's app
    # registry can import a model.
    from evalsite.database_health import database_reachable

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


@worker_init.connect
def freeze_startup_heap(**kwargs: Any) -> None:
    """What the worker holds once started (Django, the apps, their modules
    and settings) is moved out of the cycle collector's reach: none of it is
    ever garbage, and a full collection that traverses it all cost 55-70 ms
    of a 1,000-scenario eval run. What is made later is collected as before;
    nothing a task computes depends on it."""
    gc.freeze()
