"""Data that ages: thoughts, stream events and task events older than their
retention (``THOUGHT_RETENTION_DAYS``, ``STREAM_EVENT_RETENTION_DAYS``,
``TASK_EVENT_RETENTION_DAYS``; 0 keeps them forever) are deleted by beat
every hour (``stream.retention_sweep``, docs/retention.md).

Each sweep takes the lowest primary keys among the expired rows,
``RETENTION_BATCH`` at a time, and deletes the expired rows of that key range
in its own short transaction, so a backlog of millions never holds a long
lock or one huge transaction against publishing. The per-agent queue policy
(``stream.services.retention``) still runs every 30 seconds; this sweep is
the floor under it and reaches agents that are no longer active. A thought
is never deleted before the age at which that policy would drop it: an
unprocessed actionable thought waits at least ``STREAM_ACTIONABLE_MAX_AGE_S``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from stream.models import StreamEvent, Task, TaskEvent, Thought

logger = logging.getLogger(__name__)

# One sweep deletes at most this many batches of a kind; the next goes on.
MAX_BATCHES_PER_RUN: Final = 1000


@dataclass(frozen=True, slots=True)
class SweepResult:
    kind: str
    deleted: int
    batches: int
    # Expired rows were left for the next run (the per-run cap was reached).
    more: bool


def thoughts_expired(*, now: datetime, days: int) -> Q:
    """The thoughts older than ``days`` and older than the age at which the
    queue policy (SC-B4) drops their kind: processed, actionable and
    unprocessed, or any other unprocessed thought."""

    def cutoff(max_age_s: int) -> datetime:
        return now - max(timedelta(days=days), timedelta(seconds=max_age_s))

    ages = (
        settings.STREAM_PROCESSED_MAX_AGE_S,
        settings.STREAM_ACTIONABLE_MAX_AGE_S,
        settings.STREAM_OTHER_MAX_AGE_S,
    )
    # The latest of the three cutoffs, alone, lets an index on created_at
    # (or a partition's bounds) narrow the read before the kinds are told.
    return Q(created_at__lt=max(cutoff(age) for age in ages)) & (
        Q(processed=True, created_at__lt=cutoff(settings.STREAM_PROCESSED_MAX_AGE_S))
        | Q(
            processed=False,
            convert_eligible=True,
            created_at__lt=cutoff(settings.STREAM_ACTIONABLE_MAX_AGE_S),
        )
        | (
            Q(processed=False, created_at__lt=cutoff(settings.STREAM_OTHER_MAX_AGE_S))
            & ~Q(convert_eligible=True)
        )
    )


def _release_tasks(thoughts: QuerySet[Thought]) -> None:
    # Tasks outlive their thought (Task.thought is SET_NULL); done here in
    # SQL so the delete needs no instances, and so it holds when the table
    # is partitioned and the database no longer keeps that foreign key.
    Task.objects.filter(thought__in=thoughts.values("pk")).update(thought=None)


def sweep(
    kind: str,
    expired: QuerySet[Any],
    *,
    batch: int,
    max_batches: int = MAX_BATCHES_PER_RUN,
    before_delete: Callable[[QuerySet[Any]], None] | None = None,
) -> SweepResult:
    """Delete the rows of ``expired``, ``batch`` at a time by primary-key
    range, each batch in its own transaction. Safe side by side with
    another sweep (a row deleted by the other is simply not found)."""
    deleted = batches = 0
    more = False
    while True:
        keys = list(expired.order_by("pk").values_list("pk", flat=True)[:batch])
        if not keys:
            break
        if batches >= max_batches:
            more = True
            break
        with transaction.atomic():
            rows = expired.filter(pk__gte=keys[0], pk__lte=keys[-1])
            # Read again under lock: a row may have changed since.
            locked = list(
                rows.select_for_update(of=("self",)).values_list("pk", flat=True)
            )
            if before_delete is not None:
                before_delete(rows.model.objects.filter(pk__in=locked))
            count = delete_keys(rows.model._meta.db_table, locked)
        deleted += count
        batches += 1
        if len(keys) < batch:
            break
    return SweepResult(kind=kind, deleted=deleted, batches=batches, more=more)


def delete_keys(table: str, keys: list[int]) -> int:
    """``DELETE`` the rows of ``table`` with these ids, in plain SQL: the
    ORM's delete would load every row first to apply ``on_delete`` rules,
    which the sweeps apply themselves."""
    if not keys:
        return 0
    quoted = connection.ops.quote_name(table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"DELETE FROM {quoted} WHERE id = ANY(%s)",  # noqa: S608
                [keys],
            )
            return cursor.rowcount
        deleted = 0
        for start in range(0, len(keys), 900):  # SQLite's bound-parameter limit
            chunk = keys[start : start + 900]
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(
                f"DELETE FROM {quoted} WHERE id IN ({marks})",  # noqa: S608
                chunk,
            )
            deleted += cursor.rowcount
        return deleted


def retention_sweep(
    *,
    now: datetime | None = None,
    batch: int | None = None,
    max_batches: int = MAX_BATCHES_PER_RUN,
) -> list[SweepResult]:
    """Sweep thoughts, stream events and the events of finished tasks by
    their retention settings; logs one ``[Retention] sweep`` line per kind
    with its counts."""
    now = now or timezone.now()
    batch = batch or settings.RETENTION_BATCH
    results = []
    days = settings.THOUGHT_RETENTION_DAYS
    if days > 0:
        results.append(
            sweep(
                "thoughts",
                Thought.objects.filter(thoughts_expired(now=now, days=days)),
                batch=batch,
                max_batches=max_batches,
                before_delete=_release_tasks,
            )
        )
    days = settings.STREAM_EVENT_RETENTION_DAYS
    if days > 0:
        cutoff = now - timedelta(days=days)
        results.append(
            sweep(
                "stream_events",
                StreamEvent.objects.filter(created_at__lt=cutoff),
                batch=batch,
                max_batches=max_batches,
            )
        )
    days = settings.TASK_EVENT_RETENTION_DAYS
    if days > 0:
        cutoff = now - timedelta(days=days)
        finished = (Task.Status.COMPLETED, Task.Status.FAILED)
        results.append(
            sweep(
                "task_events",
                TaskEvent.objects.filter(
                    created_at__lt=cutoff, task__status__in=finished
                ),
                batch=batch,
                max_batches=max_batches,
            )
        )
    for result in results:
        log_sweep(result)
    return results


def log_sweep(result: SweepResult) -> None:
    logger.info(
        "[Retention] sweep kind=%s deleted=%s batches=%s more=%s",
        result.kind,
        result.deleted,
        result.batches,
        str(result.more).lower(),
        extra={"kind": result.kind, "deleted": result.deleted},
    )
