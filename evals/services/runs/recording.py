"""Recording the case results of a run: idempotent, batched, with progress.

A case id recorded already (a redelivered or parallel chunk got there first)
is skipped and never counted twice: ``CaseResult`` is unique on ``run,
case_id``, and a batch is one ``INSERT ... ON CONFLICT DO NOTHING
RETURNING`` whose returned rows are the ones counted (SQLite >= 3.35 and
Postgres). A database that cannot return inserted rows gets the rows already
there filtered out first, and a race past that filter falls back to
inserting one row at a time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.db import IntegrityError, connections, router, transaction
from django.db.models import F
from django.utils import timezone

from evals.models import CaseResult, Run
from evals.services.runs.executors import CaseRecord

# Results are committed in batches (one transaction per batch, not per
# case); a worker that dies redoes at most one batch.
RECORD_BATCH = 25
# A batch is also committed after this long, so the progress bar moves.
RECORD_INTERVAL_S = 0.2
# In one process (``run_execute``) a batch is committed by time, with this
# many cases at most: a commit per 25 cases was a third of the run's time on
# Postgres (a WAL flush each) and is not needed for the progress bar, which
# the time still moves.
IN_PROCESS_RECORD_BATCH = 250
METRIC_INPUTS_KEY = "metricInputs"

ProgressCallback = Callable[[int, int], None]


class CaseRecorder:
    """Stores the case results of one chunk of a run (see the module doc)."""

    def __init__(
        self,
        run: Run,
        on_progress: ProgressCallback | None,
        *,
        batch: int | None = None,
    ) -> None:
        self.run = run
        self.on_progress = on_progress
        # None: RECORD_BATCH as it is when a case is added.
        self.batch = batch
        self.recorded = 0
        self._pending: list[CaseRecord] = []
        self._last_flush = time.monotonic()

    def add(self, record: CaseRecord) -> None:
        """Buffer ``record``; commit the buffer when it is full or old."""
        self._pending.append(record)
        if (
            len(self._pending) >= (self.batch or RECORD_BATCH)
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
    alias = router.db_for_write(CaseResult)
    connection = connections[alias]
    if not connection.features.can_return_rows_from_bulk_insert:
        return _record_checked(run, records)
    stored = 0
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        for start in range(0, len(records), _INSERT_ROWS):
            part = records[start : start + _INSERT_ROWS]
            cursor.execute(_insert_sql(connection, len(part)), _params(run, part))
            stored += len(cursor.fetchall())
        Run.objects.using(alias).filter(pk=run.pk).update(
            progress_done=F("progress_done") + stored, updated_at=timezone.now()
        )
    return stored


# Rows per INSERT statement (9 parameters each).
_INSERT_ROWS = 100
_COLUMNS = (
    "run",
    "case_id",
    "passed",
    "error",
    "latency_ms",
    "stimulus_kind",
    "affordance",
    "tags",
    "details",
)
_JSON_COLUMNS = frozenset({"tags", "details"})
_SQL: dict[tuple[str, int], str] = {}


def _insert_sql(connection: Any, rows: int) -> str:
    """``INSERT`` of ``rows`` case rows that skips the (run, case id) already
    stored and returns the case ids it inserted."""
    key = (connection.vendor, rows)
    sql = _SQL.get(key)
    if sql is None:
        meta = CaseResult._meta
        quote = connection.ops.quote_name
        columns = [meta.get_field(name).column for name in _COLUMNS]
        # JSON goes in as text: a cast where the column is a JSON type.
        cast = "::jsonb" if connection.vendor == "postgresql" else ""
        row = "({})".format(
            ", ".join(f"%s{cast}" if n in _JSON_COLUMNS else "%s" for n in _COLUMNS)
        )
        # Names from the model's metadata, quoted; values are parameters.
        sql = (
            f"INSERT INTO {quote(meta.db_table)} "  # noqa: S608
            f"({', '.join(quote(c) for c in columns)}) "
            f"VALUES {', '.join([row] * rows)} "
            f"ON CONFLICT ({quote(columns[0])}, {quote(columns[1])}) DO NOTHING "
            f"RETURNING {quote(columns[1])}"
        )
        _SQL[key] = sql
    return sql


def _params(run: Run, records: Sequence[CaseRecord]) -> list[Any]:
    """The rows' values, the JSON documents as the field would encode them
    (or as the record already holds them)."""
    encoder = CaseResult._meta.get_field("details").encoder  # type: ignore[attr-defined]
    params: list[Any] = []
    for record in records:
        if record.metric_inputs:
            details = dict(record.details)
            details[METRIC_INPUTS_KEY] = dict(record.metric_inputs)
            details_json = json.dumps(details, cls=encoder)
        elif record.details_json:
            details_json = record.details_json
        else:
            details_json = json.dumps(dict(record.details), cls=encoder)
        params += (
            run.pk,
            record.case_id,
            record.passed,
            record.error,
            record.latency_ms,
            record.stimulus_kind,
            record.affordance,
            json.dumps(list(record.tags)),
            details_json,
        )
    return params


def _record_checked(run: Run, records: Sequence[CaseRecord]) -> int:
    """``_record`` on a database that cannot return inserted rows: the rows
    already there are filtered out, a race past that filter falls back to
    one row at a time."""
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
