"""Recording the case results of a run: idempotent, batched, with progress.

A case id recorded already (a redelivered or parallel chunk got there first)
is skipped and never counted twice: ``CaseResult`` is unique on ``run,
case_id``, the rows already there are filtered out, and a race past that
filter falls back to inserting one row at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from evals.models import CaseResult, Run
from evals.services.runs.executors import CaseRecord

# Results are committed in batches (one transaction per batch, not per
# case); a worker that dies redoes at most one batch.
RECORD_BATCH = 25
# A batch is also committed after this long, so the progress bar moves.
RECORD_INTERVAL_S = 0.2
METRIC_INPUTS_KEY = "metricInputs"

ProgressCallback = Callable[[int, int], None]


class CaseRecorder:
    """Stores the case results of one chunk of a run (see the module doc)."""

    def __init__(self, run: Run, on_progress: ProgressCallback | None) -> None:
        self.run = run
        self.on_progress = on_progress
        self.recorded = 0
        self._pending: list[CaseRecord] = []
        self._last_flush = time.monotonic()

    def add(self, record: CaseRecord) -> None:
        """Buffer ``record``; commit the buffer when it is full or old."""
        self._pending.append(record)
        if (
            len(self._pending) >= RECORD_BATCH
            or time.monotonic() - self._last_flush >= RECORD_INTERVAL_S
        ):
            self.flush()

    def flush(self) -> int:
        """Commit what is buffered; how many rows were stored."""
        if not self._pending:
            return 0
        stored = self.record_now(self._pending)
        self._pending, self._last_flush = [], time.monotonic()
        return stored

    def is_recorded(self, case_id: str) -> bool:
        return CaseResult.objects.filter(run=self.run, case_id=case_id).exists()

    def record_now(self, records: Sequence[CaseRecord]) -> int:
        """Store ``records`` and bump ``progress_done`` by the number stored,
        in one transaction (nested in the caller's, if any)."""
        stored = _record(self.run, records)
        self.recorded += stored
        if self.on_progress is not None:
            done = Run.objects.values_list("progress_done", flat=True).get(
                pk=self.run.pk
            )
            self.on_progress(done, self.run.total_cases)
        return stored


def _row(run: Run, record: CaseRecord) -> CaseResult:
    details = dict(record.details)
    if record.metric_inputs:
        details[METRIC_INPUTS_KEY] = dict(record.metric_inputs)
    return CaseResult(
        run=run,
        case_id=record.case_id,
        passed=record.passed,
        error=record.error,
        latency_ms=record.latency_ms,
        stimulus_kind=record.stimulus_kind,
        affordance=record.affordance,
        tags=list(record.tags),
        details=details,
    )


def _record(run: Run, records: Sequence[CaseRecord]) -> int:
    """A row that exists already (a duplicate delivery of the same chunk got
    there first) is skipped, never counted twice."""
    rows = [_row(run, record) for record in records]
    with transaction.atomic():
        existing = set(
            CaseResult.objects.filter(
                run=run, case_id__in=[r.case_id for r in rows]
            ).values_list("case_id", flat=True)
        )
        rows = [r for r in rows if r.case_id not in existing]
        try:
            with transaction.atomic():
                CaseResult.objects.bulk_create(rows)
            stored = len(rows)
        except IntegrityError:
            stored = sum(_record_one(row) for row in rows)
        Run.objects.filter(pk=run.pk).update(
            progress_done=F("progress_done") + stored, updated_at=timezone.now()
        )
    return stored


def _record_one(row: CaseResult) -> bool:
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except IntegrityError:
        return False
    return True
