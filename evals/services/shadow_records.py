"""Use cases of shadow recall records: ingest over REST (one record or a
batch, the batch decoded and checked by ``evals.core.shadow`` while it is
read), the commands and the demo.

A refused record leaves nothing behind: every record of a request is checked
before one is written, and the rows go in one transaction. A record equal
to the stored one (same canonical digest) is reported unchanged; a different
record under a stored traceId is a ``Conflict`` (409). Logs one
``[Eval] shadow_records_ingested created=<n> unchanged=<n>`` line per write.
Needs ``EVAL_HARNESS_ENABLED`` and ``EVAL_SHADOW_MODE_ENABLED``
(``FeatureDisabled`` otherwise).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial
from typing import Any

import msgspec
import orjson
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.backends.base.operations import BaseDatabaseOperations
from django.utils import timezone

from core.errors import Conflict, SchemaInvalid, SchemaProblem
from evals.core.formats_types import ShadowRecord as ShadowDocument
from evals.core.shadow import (
    CheckedShadowBatch,
    WireShadow,
    fast_wire,
    validate_shadow_record,
    wire_of,
)
from evals.core.wire import instant, problems_at
from evals.models import ShadowRecord
from evals.services.benchmark_records import same_document, stored_documents
from evals.services.benchmarks import MAX_SHADOW_BATCH
from evals.services.columns import identifier_problems, require_storable
from evals.services.features import require_shadow_mode

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ShadowIngestResult:
    created: int
    unchanged: int
    trace_ids: tuple[str, ...]


def shadow_row(
    record: ShadowDocument, wire: Mapping[str, Any] | None = None
) -> ShadowRecord:
    """The row of a valid record; ``wire`` is its ``to_wire()`` if at hand."""
    return ShadowRecord(
        trace_id=record.trace_id,
        recorded_at=instant(record.recorded_at),
        day=date.fromisoformat(record.day),
        document=dict(wire) if wire is not None else record.to_wire(),
    )


def _json_text(value: Any) -> str:
    """``json.dumps(value)`` through orjson: the same JSON value, compact,
    non-ASCII as UTF-8; ``json.dumps`` itself where orjson refuses (never for
    a stored wire form: no lone surrogates, no integer outside 64 bits).

    A decoded record (``WireShadow``) is encoded by msgspec, which writes the
    bytes orjson writes for its wire form, floats aside (``1e16`` where
    orjson writes ``1e+16``): a record holding a float goes through its wire
    form and orjson, so the column holds the same text either way.
    """
    if type(value) is WireShadow:
        if (
            type(value.promptLength) is int
            and type(value.retrievalQueryLength) is int
            and type(value.recallResultLimit) is int
            and type(value.recalledMemoryCount) is int
            and type(value.contextChars) is int
            and type(value.durationMs) is int
        ):
            return msgspec.json.encode(value).decode()
        value = wire_of(value)
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


class _OrjsonEncoder(json.JSONEncoder):
    def encode(self, o: Any) -> str:
        return _json_text(o)


def _shadow_json_param() -> Any:
    """How a wire form becomes the ``document`` parameter: the backend's
    ``adapt_json_value`` with orjson doing the encoding (the plain text itself
    where the backend takes ``json.dumps`` text as it is)."""
    ops = connection.ops
    if type(ops).adapt_json_value is BaseDatabaseOperations.adapt_json_value:
        return _json_text
    return partial(ops.adapt_json_value, encoder=_OrjsonEncoder)


# traceId -> (wire form, or the decoded record; recordedAt instant)
_Records = Mapping[str, tuple[dict[str, Any] | WireShadow, datetime]]


def _instant_param() -> Callable[[datetime], Any]:
    """The backend's ``adapt_datetimefield_value`` for aware instants; on
    SQLite its own steps written out (to the connection's zone, naive, as
    text), without its checks that cost more than the conversion."""
    ops = connection.ops
    if connection.vendor == "sqlite" and settings.USE_TZ:
        zone = connection.timezone

        def adapt(value: datetime) -> str:
            if value.tzinfo is not zone:
                value = value.astimezone(zone)
            return str(value.replace(tzinfo=None))

        return adapt
    return ops.adapt_datetimefield_value


def _shadow_insert(
    rows: Sequence[tuple[str, dict[str, Any] | WireShadow, datetime]],
    *,
    skip_existing: bool = False,
) -> int:
    """``(traceId, wire, instant)`` rows in one ``executemany``: the columns
    ``bulk_create`` would write, each adapted by the backend's own operations
    (its per-object machinery cost more than the insert itself). With
    ``skip_existing``, a row whose traceId is stored already is left out
    (``ON CONFLICT (trace_id) DO NOTHING``). Returns the rows inserted."""
    if not rows:
        return 0
    ops = connection.ops
    json_param = _shadow_json_param()
    table = ShadowRecord._meta.db_table
    columns = ("trace_id", "recorded_at", "day", "document", "created_at")
    sql = (
        f"INSERT INTO {ops.quote_name(table)} "  # noqa: S608 - fixed names
        f"({', '.join(ops.quote_name(column) for column in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    if skip_existing:
        sql += f" ON CONFLICT ({ops.quote_name('trace_id')}) DO NOTHING"
    created_at = ops.adapt_datetimefield_value(timezone.now())
    adapt_instant = _instant_param()
    adapt_day = ops.adapt_datefield_value
    days: dict[str, Any] = {}  # recordedAt[:10] -> the day parameter
    params = []
    for trace_id, wire, recorded_at in rows:
        day_text = (
            wire.recordedAt if type(wire) is WireShadow else wire["recordedAt"]  # type: ignore[index]
        )[:10]
        day = days.get(day_text)
        if day is None:
            day = days[day_text] = adapt_day(date.fromisoformat(day_text))
        params.append(
            (trace_id, adapt_instant(recorded_at), day, json_param(wire), created_at)
        )
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)
        return cursor.rowcount


def shadow_records_ingest(
    *, documents: Sequence[Any], batch: bool = True
) -> ShadowIngestResult:
    """Validate shadow recall records and store the new ones, all or nothing.

    Needs shadow mode (``FeatureDisabled`` otherwise). Every problem of every
    record is reported, under ``$.records[i]`` for a batch; a traceId twice
    in one batch with different content is a problem; a stored record with
    the same traceId and different content is a ``Conflict``; identical ones
    count as ``unchanged``. Logs ``[Eval] shadow_records_ingested
    created=<n> unchanged=<n>``.
    """
    require_shadow_mode()
    if batch and not documents:
        raise SchemaInvalid(
            "no records",
            problems=[
                SchemaProblem(
                    "$.records", "invalid", "records must be a non-empty array"
                )
            ],
        )
    if len(documents) > MAX_SHADOW_BATCH:
        raise SchemaInvalid(
            "too many records",
            problems=[
                SchemaProblem(
                    "$.records",
                    "too_many",
                    f"records must hold at most {MAX_SHADOW_BATCH} records",
                )
            ],
        )
    problems: list[SchemaProblem] = []
    # traceId -> (wire form, recordedAt instant)
    records: dict[str, tuple[dict[str, Any] | WireShadow, datetime]] = {}
    for index, document in enumerate(documents):
        fast = fast_wire(document)
        if fast is None:
            prefix = f"$.records[{index}]" if batch else "$"
            try:
                record = validate_shadow_record(document)
                require_storable(document, ShadowRecord, (), what="shadow record")
            except SchemaInvalid as error:
                problems.extend(problems_at(prefix, error.problems))
                continue
            fast = (record.to_wire(), instant(record.recorded_at))
        wire = fast[0]
        unsafe = _unsafe_memory_ids(wire, f"$.records[{index}]" if batch else "$")
        if unsafe:
            problems.extend(unsafe)
            continue
        trace_id = wire["traceId"]
        seen = records.get(trace_id)
        # Equal wire forms are equal records (the same fields, compared alike).
        if seen is not None and seen[0] != wire:
            prefix = f"$.records[{index}]" if batch else "$"
            problems.append(
                SchemaProblem(
                    f"{prefix}.traceId",
                    "duplicate",
                    f"traceId {trace_id} appears twice with different content",
                )
            )
        records[trace_id] = fast
    if problems:
        raise SchemaInvalid("invalid shadow recall record(s)", problems=problems)
    return _shadow_store_again_on_race(records)


def _unsafe_memory_ids(
    wire: dict[str, Any] | WireShadow, prefix: str
) -> list[SchemaProblem]:
    """The memory ids of a record that are no safe identifiers."""
    memory_ids = wire["memoryIds"] if isinstance(wire, dict) else wire.memoryIds
    return problems_at(
        prefix,
        identifier_problems(
            (f"$.memoryIds[{i}]", memory_id) for i, memory_id in enumerate(memory_ids)
        ),
    )


def shadow_batch_ingest(*, batch: CheckedShadowBatch) -> ShadowIngestResult:
    """``shadow_records_ingest(documents=..., batch=True)`` for a batch body
    that ``decode_shadow_batch`` proved valid: the same answers, rows and log
    line (the size limit and the in-batch duplicates are decided here)."""
    require_shadow_mode()
    if len(batch.records) > MAX_SHADOW_BATCH:
        # Worded by the ordinary path.
        return shadow_records_ingest(
            documents=[wire_of(record) for record, _ in batch.records]
        )
    records: dict[str, tuple[dict[str, Any] | WireShadow, datetime]] = {}
    problems: list[SchemaProblem] = []
    for index, (record, recorded_at) in enumerate(batch.records):
        unsafe = _unsafe_memory_ids(record, f"$.records[{index}]")
        if unsafe:
            problems.extend(unsafe)
            continue
        trace_id = record.traceId
        seen = records.get(trace_id)
        # Equal records have equal wire forms (the same fields, compared alike).
        if seen is not None and seen[0] != record:
            problems.append(
                SchemaProblem(
                    f"$.records[{index}].traceId",
                    "duplicate",
                    f"traceId {trace_id} appears twice with different content",
                )
            )
        records[trace_id] = (record, recorded_at)
    if problems:
        raise SchemaInvalid("invalid shadow recall record(s)", problems=problems)
    return _shadow_store_again_on_race(records)


def _shadow_store_again_on_race(records: _Records) -> ShadowIngestResult:
    try:
        return _shadow_store(records)
    except IntegrityError:
        # A concurrent request stored some of them first: decide again.
        return _shadow_store(records)


def _wire(document: dict[str, Any] | WireShadow) -> dict[str, Any]:
    return wire_of(document) if type(document) is WireShadow else document


class _SomeStored(Exception):
    """Some records of a batch are stored already: undo, decide as usual."""


# Where inserting first pays: SQLite (>= 3.24) takes ON CONFLICT (col) DO
# NOTHING and its executemany rowcount is the rows inserted; the lookup it
# saves is ~0.5 µs a record there. PostgreSQL takes it too, but side by side
# it made no difference beyond run-to-run spread (23,300-27,600 records/s
# against 25,800-27,500), so it keeps the lookup.
_SKIP_EXISTING_VENDORS = frozenset(("sqlite",))


def _shadow_store(records: _Records) -> ShadowIngestResult:
    ids = sorted(records)
    rows = [(trace_id, *records[trace_id]) for trace_id in ids]
    if connection.vendor in _SKIP_EXISTING_VENDORS:
        # Most batches are new records: insert them all, skipping stored
        # traceIds, and keep that when none was skipped (no lookup first).
        # Otherwise undo it and decide with the stored documents at hand.
        try:
            with transaction.atomic():
                if _shadow_insert(rows, skip_existing=True) != len(rows):
                    raise _SomeStored
        except _SomeStored:
            pass
        else:
            _log_shadow_ingested(len(ids), 0)
            return ShadowIngestResult(len(ids), 0, tuple(ids))
    stored = stored_documents(ShadowRecord, "trace_id", ids, "document")
    conflicts = [
        trace_id
        for trace_id, document in stored.items()
        if not same_document(document, _wire(records[trace_id][0]))
    ]
    if conflicts:
        raise Conflict(
            "shadow record(s) already exist with different content: "
            + ", ".join(sorted(conflicts)),
            details={"traceIds": sorted(conflicts)},
        )
    new = [row for row in rows if row[0] not in stored]
    with transaction.atomic():
        _shadow_insert(new)
    _log_shadow_ingested(len(new), len(stored))
    return ShadowIngestResult(len(new), len(stored), tuple(ids))


def _log_shadow_ingested(created: int, unchanged: int) -> None:
    logger.info(
        "[Eval] shadow_records_ingested created=%d unchanged=%d",
        created,
        unchanged,
        extra={"created_count": created, "unchanged_count": unchanged},
    )
