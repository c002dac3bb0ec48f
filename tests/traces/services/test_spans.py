"""Storing spans: one insert per batch, a resent span stored once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from traces.core.records import SOURCE_OTLP, SpanRecord, TokenUsage
from traces.models import Span
from traces.services.spans import store_spans

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def record(span_id: str, **fields) -> SpanRecord:
    return SpanRecord(
        trace_id="ab" * 16,
        span_id=span_id,
        name="chat gpt-4o-mini",
        started_at=T0,
        ended_at=T0 + timedelta(milliseconds=250),
        source=SOURCE_OTLP,
        **fields,
    )


@pytest.mark.django_db
def test_unknown_usage_is_stored_as_null_never_zero() -> None:
    store_spans([record("01" * 8, request_model="m")])
    span = Span.objects.get()
    assert span.input_tokens is None
    assert span.output_tokens is None


@pytest.mark.django_db
def test_a_resent_span_is_stored_once_and_counted_as_duplicate() -> None:
    first = store_spans(
        [record("01" * 8, usage=TokenUsage(input=10, output=2)), record("02" * 8)]
    )
    again = store_spans([record("01" * 8), record("03" * 8)])
    assert (first.stored, first.duplicates) == (2, 0)
    assert (again.stored, again.duplicates) == (1, 1)
    assert Span.objects.get(span_id="01" * 8).input_tokens == 10


@pytest.mark.django_db
def test_stored_columns_read_back_as_given_json_times_and_client_cost() -> None:
    attributes = {"é\u2603": [1, 2.5, None, {"k": "v"}], "flag": False, "n": 2**62}
    events = [{"name": "first token", "time": "2026-11-01T12:00:00.100000+00:00"}]
    store_spans(
        [
            record(
                "04" * 8,
                attributes=attributes,
                events=events,
                request_params={"temperature": 0.5},
                client_cost_usd=Decimal("0.0000012345"),
            )
        ]
    )
    span = Span.objects.get()
    assert span.attributes == attributes
    assert span.events == events
    assert span.request_params == {"temperature": 0.5}
    assert span.started_at == T0
    assert span.ended_at == T0 + timedelta(milliseconds=250)
    assert span.cost_usd == Decimal("0.0000012345")
    assert span.cost_source == "client"
