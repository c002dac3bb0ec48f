"""Retention of case results: the cases of finished runs that started more
than ``CASE_RESULT_RETENTION_DAYS`` ago are deleted by beat every hour
(``evals.retention_sweep``, docs/retention.md); 0, the default, keeps them
forever.

The run itself stays: its row, status, counts (``total_cases``,
``passed_cases``, ``failed_cases``), metrics, summary and uncertainty, so
run lists, trends and exports of the summary still show it; its case table,
case pages and case-by-case comparison are empty from then on. Baseline
snapshots keep their own document and are not touched. Queued and running
runs are never swept.

The sweep goes run by run, oldest first, and deletes each run's cases
``RETENTION_BATCH`` at a time by primary-key range, each batch in its own
short transaction.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from evals.models import CaseResult, Run

logger = logging.getLogger(__name__)

# One sweep deletes at most this many batches; the next run goes on.
MAX_BATCHES_PER_RUN: Final = 1000
FINISHED: Final = (Run.Status.COMPLETED, Run.Status.FAILED, Run.Status.PARTIAL)


@dataclass(frozen=True, slots=True)
class CaseSweepResult:
    deleted: int
    batches: int
    # Runs whose cases were all deleted by this sweep.
    runs: int
    # Expired cases were left for the next run (the per-run cap was reached).
    more: bool


def runs_with_expired_cases(*, now: datetime, days: int) -> QuerySet[Run]:
    """The finished runs that started more than ``days`` before ``now`` and
    still hold case results, oldest first."""
    return (
        Run.objects.filter(
            started_at__lt=now - timedelta(days=days), status__in=FINISHED
        )
        .filter(Exists(CaseResult.objects.filter(run=OuterRef("pk"))))
        .order_by("started_at", "pk")
    )


def case_results_sweep(
    *,
    now: datetime | None = None,
    days: int | None = None,
    batch: int | None = None,
    max_batches: int = MAX_BATCHES_PER_RUN,
) -> CaseSweepResult:
    """Delete the case results of the runs ``runs_with_expired_cases``
    finds; logs ``[Retention] sweep kind=case_results`` with its counts."""
    days = settings.CASE_RESULT_RETENTION_DAYS if days is None else days
    batch = batch or settings.RETENTION_BATCH
    if days <= 0:
        return CaseSweepResult(deleted=0, batches=0, runs=0, more=False)
    deleted = batches = runs = 0
    more = False
    expired_runs = runs_with_expired_cases(now=now or timezone.now(), days=days)
    # Each run takes a batch at least: more runs than batches can wait.
    run_pks = list(expired_runs.values_list("pk", flat=True)[: max_batches + 1])
    for run_pk in run_pks:
        while True:
            cases = CaseResult.objects.filter(run_id=run_pk)
            keys = list(cases.order_by("pk").values_list("pk", flat=True)[:batch])
            if not keys:
                runs += 1
                break
            if batches >= max_batches:
                more = True
                break
            with transaction.atomic():
                count, _ = cases.filter(pk__gte=keys[0], pk__lte=keys[-1]).delete()
            deleted += count
            batches += 1
            if len(keys) < batch:
                runs += 1
                break
        if more:
            break
    result = CaseSweepResult(deleted=deleted, batches=batches, runs=runs, more=more)
    logger.info(
        "[Retention] sweep kind=case_results deleted=%s batches=%s runs=%s more=%s",
        deleted,
        batches,
        runs,
        str(more).lower(),
        extra={"kind": "case_results", "deleted": deleted},
    )
    return result
