"""Retention of spans: those older than ``TRACE_RETENTION_DAYS`` go.

Beat runs ``traces.prune_spans`` (``traces/tasks/retention.py``) every
hour. Deletes walk the spans by primary key, ``TRACE_RETENTION_BATCH`` rows
at a time, each batch in its own short transaction, so a backlog of
millions never holds one long lock or one huge transaction against
ingestion. ``TRACE_RETENTION_DAYS = 0`` keeps every span.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from traces.models import Span

logger = logging.getLogger(__name__)

# One run deletes at most this many batches; the next run goes on.
MAX_BATCHES_PER_RUN: Final = 1000


@dataclass(frozen=True, slots=True)
class PruneResult:
    deleted: int
    batches: int
    # Older spans were left for the next run (the per-run cap was reached).
    more: bool


def spans_prune(
    *,
    now: datetime | None = None,
    days: int | None = None,
    batch: int | None = None,
    max_batches: int = MAX_BATCHES_PER_RUN,
) -> PruneResult:
    """Delete spans that started more than ``days`` (``TRACE_RETENTION_DAYS``)
    before ``now``, ``batch`` (``TRACE_RETENTION_BATCH``) at a time.

    Each batch takes the lowest primary keys among the expired spans and
    deletes the expired spans in that key range, in its own transaction.
    Safe to run twice or side by side (a span deleted by the other run is
    simply not found). Logs ``[Traces] spans_pruned`` when it deleted any.
    """
    days = settings.TRACE_RETENTION_DAYS if days is None else days
    batch = settings.TRACE_RETENTION_BATCH if batch is None else batch
    if days <= 0:
        return PruneResult(deleted=0, batches=0, more=False)
    cutoff = (now or timezone.now()) - timedelta(days=days)
    expired = Span.objects.filter(started_at__lt=cutoff)
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
            count, _ = expired.filter(pk__gte=keys[0], pk__lte=keys[-1]).delete()
        deleted += count
        batches += 1
        if len(keys) < batch:
            break
    if deleted:
        logger.info(
            "[Traces] spans_pruned deleted=%s batches=%s older_than_days=%s more=%s",
            deleted,
            batches,
            days,
            str(more).lower(),
            extra={"deleted": deleted, "batches": batches, "days": days},
        )
    return PruneResult(deleted=deleted, batches=batches, more=more)
