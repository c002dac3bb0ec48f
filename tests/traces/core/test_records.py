"""The span record: what counts as a model call (priced) and what does not."""

from __future__ import annotations

from datetime import UTC, datetime

from traces.core.records import SOURCE_OTLP, SpanRecord

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def test_a_span_naming_a_model_is_a_model_call_and_a_tool_span_is_not() -> None:
    base = {"trace_id": "a" * 32, "name": "x", "started_at": T0, "ended_at": T0}
    chat = SpanRecord(span_id="1" * 16, source=SOURCE_OTLP, request_model="m", **base)
    tool = SpanRecord(span_id="2" * 16, source=SOURCE_OTLP, tool_name="dig", **base)
    assert chat.is_model_call
    assert not tool.is_model_call
