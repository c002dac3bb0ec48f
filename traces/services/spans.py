"""Storing spans: one path for OTLP batches and the harness's own calls.

``store_spans`` prices every model call at ingestion (the active price
table; a client's cost wins), then inserts the batch in one statement. A
span already stored (same trace and span id: an exporter's retry) is kept
as it was and counted as a duplicate. Writes only; no network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

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


def store_spans(
    records: Sequence[SpanRecord], *, agent_id: int | None = None
) -> StoreResult:
    """Price and insert ``records``; all or nothing."""
    if not records:
        return StoreResult(0, 0)
    rows = [span_row(record, agent_id=agent_id) for record in records]
    apply_prices(rows, records)
    with transaction.atomic():
        before = Span.objects.filter(
            trace_id__in={r.trace_id for r in rows}
        ).count()
        Span.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
        after = Span.objects.filter(trace_id__in={r.trace_id for r in rows}).count()
    stored = after - before
    return StoreResult(stored=stored, duplicates=len(rows) - stored)
