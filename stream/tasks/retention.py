"""Celery tasks of data that ages (docs/retention.md): the hourly sweep of
old thoughts and events, and the daily upkeep of the thoughts table's
monthly partitions (made ahead, dropped past retention)."""

from __future__ import annotations

from celery import shared_task

from stream.services.aging import retention_sweep
from stream.services.partitions import partitions_ahead, partitions_expired


@shared_task(name="stream.retention_sweep", ignore_result=True)
def sweep_aged() -> int:
    """Delete the thoughts, stream events and task events past their
    retention, in batches; returns how many went. Idempotent."""
    return sum(result.deleted for result in retention_sweep())


@shared_task(name="stream.thought_partitions_ahead", ignore_result=True)
def thought_partitions_ahead() -> int:
    """Create the thoughts table's partitions of the coming months and drop
    those past retention (when ``STREAM_THOUGHT_PARTITIONING`` is on and the
    table is partitioned); returns how many changed. Idempotent."""
    return len(partitions_ahead()) + len(partitions_expired())
