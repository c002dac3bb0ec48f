"""Storing spans: one path for OTLP batches and the harness's own calls.

``store_spans`` prices every model call at ingestion (the active price
table; a client's cost wins), then inserts the batch in one statement
(an ``executemany`` of prepared values where the backend is known). A
span already stored (same trace and span id: an exporter's retry) is kept
as it was and counted as a duplicate. Writes only; no network.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Final

import orjson
from django.db import connection, models, transaction
from django.utils import timezone

from traces.core.records import SpanRecord
from traces.models import Span
from traces.services.pricing import apply_prices


@dataclass(frozen=True, slots=True)
class StoreResult:
    stored: int
    duplicates: int


def span_row(record: SpanRecord, *, agent_id: int | None = None) -> Span:
    """The unsaved ``Span`` for ``record`` (not priced)."""
    usage = record.usage
    return Span(
        trace_id=record.trace_id,
        span_id=record.span_id,
        parent_span_id=record.parent_span_id,
        name=record.name[:300],
        kind=record.kind,
        source=record.source,
        agent_id=agent_id,
        operation=record.operation[:64],
        provider=record.provider[:64],
        request_model=record.request_model[:200],
        response_model=record.response_model[:200],
        request_params=record.request_params,
        input_tokens=usage.input,
        output_tokens=usage.output,
        cached_input_tokens=usage.cached_input,
        cache_write_tokens=usage.cache_write,
        reasoning_tokens=usage.reasoning,
        cost_usd=record.client_cost_usd,
        started_at=record.started_at,
        ended_at=record.ended_at,
        latency_ms=record.latency_ms,
        ttft_ms=record.ttft_ms,
        finish_reason=record.finish_reason[:64],
        retries=record.retries,
        status=record.status,
        error=record.error,
        conversation_id=record.conversation_id[:200],
        tool_name=record.tool_name[:200],
        thought_ref=record.thought_ref,
        run_ref=record.run_ref[:200],
        case_ref=record.case_ref[:300],
        attributes=record.attributes,
        events=record.events,
    )


class _Priced:
    """What ``apply_prices`` sets on a row, without building a model."""

    __slots__ = ("cost_source", "cost_usd", "price_version")

    def __init__(self, client_cost: Decimal | None) -> None:
        self.cost_usd = client_cost
        self.cost_source = ""
        self.price_version = ""


# Every concrete column of Span but the key, in insert order, with how a
# record gives its value (``span_row`` is the same mapping through the ORM).
_COLUMNS: Final = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "source",
    "agent_id",
    "operation",
    "provider",
    "request_model",
    "response_model",
    "request_params",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "cost_usd",
    "cost_source",
    "price_version",
    "started_at",
    "ended_at",
    "latency_ms",
    "ttft_ms",
    "finish_reason",
    "retries",
    "status",
    "error",
    "conversation_id",
    "tool_name",
    "thought_ref",
    "run_ref",
    "case_ref",
    "attributes",
    "events",
    "received_at",
)
# Columns whose values the backend adapts (JSON, times, decimals).
_ADAPTED: Final = frozenset(
    {
        "request_params",
        "attributes",
        "events",
        "started_at",
        "ended_at",
        "received_at",
        "cost_usd",
    }
)


def _values(
    record: SpanRecord, priced: _Priced, agent_id: int | None, now: datetime
) -> list[Any]:
    usage = record.usage
    return [
        record.trace_id,
        record.span_id,
        record.parent_span_id,
        record.name[:300],
        record.kind,
        record.source,
        agent_id,
        record.operation[:64],
        record.provider[:64],
        record.request_model[:200],
        record.response_model[:200],
        record.request_params,
        usage.input,
        usage.output,
        usage.cached_input,
        usage.cache_write,
        usage.reasoning,
        priced.cost_usd,
        priced.cost_source,
        priced.price_version,
        record.started_at,
        record.ended_at,
        record.latency_ms,
        record.ttft_ms,
        record.finish_reason[:64],
        record.retries,
        record.status,
        record.error,
        record.conversation_id[:200],
        record.tool_name[:200],
        record.thought_ref,
        record.run_ref[:200],
        record.case_ref[:300],
        record.attributes,
        record.events,
        now,
    ]


def _insert_sql(vendor: str) -> str | None:
    """``INSERT`` of every column that skips a stored (trace, span) pair;
    None on a backend without a known spelling (the ORM inserts there)."""
    model_columns = {f.attname for f in Span._meta.concrete_fields if not f.primary_key}
    if model_columns != set(_COLUMNS):
        return None  # a column added since: the ORM knows it
    # Only the model's own, quoted names go into the statement.
    quote = connection.ops.quote_name
    columns = ", ".join(quote(name) for name in _COLUMNS)
    marks = ", ".join(["%s"] * len(_COLUMNS))
    table = quote(Span._meta.db_table)
    head = {"sqlite": "INSERT OR IGNORE INTO", "postgresql": "INSERT INTO"}
    tail = {"sqlite": "", "postgresql": " ON CONFLICT DO NOTHING"}
    if vendor in head:
        values = f"({columns}) VALUES ({marks})"
        return f"{head[vendor]} {table} {values}{tail[vendor]}"
    return None


def _adapter(name: str) -> Callable[[Any], Any]:
    """The column's value as the database takes it: the field's own
    ``get_db_prep_save``, or on SQLite (UTC connection) the same text
    written directly for times and JSON, which is most of a batch's cost."""
    model_field = Span._meta.get_field(name)

    def generic(value: Any) -> Any:
        return model_field.get_db_prep_save(value, connection)

    if isinstance(model_field, models.DecimalField):
        # What the field gives a finite Decimal on every backend Django
        # ships (the value itself; pricing quantizes it already).
        def decimal(value: Any) -> Any:
            if type(value) is Decimal and value.is_finite():
                return value
            return generic(value)

        return decimal
    if connection.vendor == "postgresql":
        return _postgres_adapter(model_field, generic)
    if connection.vendor != "sqlite" or connection.timezone_name != "UTC":
        return generic
    if isinstance(model_field, models.DateTimeField):

        def sqlite_time(value: Any) -> Any:
            if isinstance(value, datetime) and value.tzinfo is not None:
                return str(value.astimezone(UTC).replace(tzinfo=None))
            return generic(value)

        return sqlite_time
    if isinstance(model_field, models.JSONField):

        def sqlite_json(value: Any) -> Any:
            try:
                return orjson.dumps(value).decode()
            except TypeError:
                return generic(value)  # what orjson does not write

        return sqlite_json
    return generic


def _postgres_adapter(
    model_field: models.Field[Any, Any], generic: Callable[[Any], Any]
) -> Callable[[Any], Any]:
    """PostgreSQL's: an aware time as it is (what the field gives it), and
    JSON as ``Jsonb`` written by orjson rather than the standard library."""
    if isinstance(model_field, models.DateTimeField):

        def pg_time(value: Any) -> Any:
            if isinstance(value, datetime) and value.tzinfo is not None:
                return value
            return generic(value)

        return pg_time
    if isinstance(model_field, models.JSONField) and model_field.encoder is None:
        from psycopg.types.json import Jsonb

        def pg_json(value: Any) -> Any:
            try:
                text = orjson.dumps(value).decode()
            except TypeError:
                return generic(value)  # what orjson does not write
            return Jsonb(text, dumps=str)  # the text as written

        return pg_json
    return generic


def store_spans(
    records: Sequence[SpanRecord], *, agent_id: int | None = None
) -> StoreResult:
    """Price and insert ``records``; all or nothing.

    One ``executemany`` of prepared values on SQLite and PostgreSQL (the
    ORM's ``bulk_create`` costs more than the insert itself for a batch of
    100), skipping the spans already stored; ``bulk_create`` elsewhere.
    """
    if not records:
        return StoreResult(0, 0)
    sql = _insert_sql(connection.vendor)
    if sql is None:
        return _store_with_orm(records, agent_id=agent_id)
    priced = [_Priced(record.client_cost_usd) for record in records]
    apply_prices(priced, records)  # type: ignore[arg-type]
    adapted = [
        (index, _adapter(name))
        for index, name in enumerate(_COLUMNS)
        if name in _ADAPTED
    ]
    now = timezone.now()
    rows = []
    for record, price in zip(records, priced, strict=True):
        values = _values(record, price, agent_id, now)
        for index, adapt in adapted:
            values[index] = adapt(values[index])
        rows.append(values)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(sql, rows)
        stored = max(cursor.rowcount, 0)
    return StoreResult(stored=stored, duplicates=len(rows) - stored)


def _store_with_orm(
    records: Sequence[SpanRecord], *, agent_id: int | None
) -> StoreResult:
    rows = [span_row(record, agent_id=agent_id) for record in records]
    apply_prices(rows, records)
    with transaction.atomic():
        before = Span.objects.filter(trace_id__in={r.trace_id for r in rows}).count()
        Span.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
        after = Span.objects.filter(trace_id__in={r.trace_id for r in rows}).count()
    stored = after - before
    return StoreResult(stored=stored, duplicates=len(rows) - stored)
