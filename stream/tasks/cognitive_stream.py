"""Celery tasks of the cognitive stream's upkeep: retention and counters."""

from __future__ import annotations

from celery import shared_task

from stream.services.counters import counters_log_all
from stream.services.retention import stream_prune_all


@shared_task(name="stream.prune_all", ignore_result=True)
def prune_all() -> None:
    """Apply retention to every agent's queue; idempotent."""
    stream_prune_all()


@shared_task(name="stream.log_agency_counters", ignore_result=True)
def log_agency_counters() -> None:
    """Log each agent's `[Agency {uptimeMin}m] ...` line (the agency contract §5)."""
    counters_log_all()
