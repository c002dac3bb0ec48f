"""Spans for the traces pages' tests, stored the way every source stores them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from traces.core.records import (
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    SOURCE_OTLP,
    SpanRecord,
    TokenUsage,
)
from traces.services.spans import store_spans

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
TRACE = "a1" * 16


def span(
    span_id: str,
    *,
    trace_id: str = TRACE,
    start_ms: float = 0,
    duration_ms: float = 100,
    **fields: Any,
) -> SpanRecord:
    started = fields.pop("started_at", T0) + timedelta(milliseconds=start_ms)
    fields.setdefault("name", "chat")
    fields.setdefault("source", SOURCE_OTLP)
    return SpanRecord(
        trace_id=trace_id,
        span_id=span_id,
        started_at=started,
        ended_at=started + timedelta(milliseconds=duration_ms),
        latency_ms=fields.pop("latency_ms", duration_ms),
        **fields,
    )


def agent_trace(
    agent_id: int | None = None, *, thought: int | None = None, at: datetime = T0
) -> None:
    """An agent step with a priced chat call, an unpriced one and a tool call."""
    store_spans(
        [
            span(
                "0" * 15 + "1",
                started_at=at,
                name="invoke_agent planner",
                operation="invoke_agent",
                duration_ms=900,
                thought_ref=thought,
            ),
            span(
                "0" * 15 + "2",
                started_at=at,
                parent_span_id="0" * 15 + "1",
                name="chat gpt-4o-mini",
                operation="chat",
                request_model="gpt-4o-mini",
                start_ms=50,
                duration_ms=400,
                usage=TokenUsage(input=1200, output=80),
                client_cost_usd=Decimal("0.000228"),
                status="ok",
                ttft_ms=120.0,
                attributes={
                    "gen_ai.prompt": "Where is the key?",
                    "gen_ai.completion": "Under the mat.",
                },
            ),
            span(
                "0" * 15 + "3",
                started_at=at,
                parent_span_id="0" * 15 + "1",
                name="execute_tool dig",
                operation="execute_tool",
                tool_name="dig",
                start_ms=500,
                duration_ms=150,
                attributes={
                    "gen_ai.tool.call.arguments": '{"depth": 3, "where": "garden"}',
                    "gen_ai.tool.call.result": "found a key",
                },
            ),
            span(
                "0" * 15 + "4",
                started_at=at,
                parent_span_id="0" * 15 + "1",
                name="chat mystery",
                operation="chat",
                request_model="mystery-model-9",
                start_ms=700,
                duration_ms=150,
                status="error",
                error="rate limited",
            ),
        ],
        agent_id=agent_id,
    )


def harness_run_spans(run_id: str, case_ids: list[str], **fields: Any) -> None:
    """One model call per case, linked by run and case id, one trace per case;
    the i-th lasts 100 + i ms unless ``duration_ms`` says."""
    duration = fields.pop("duration_ms", None)
    store_spans(
        [
            span(
                f"{i + 1:016x}",
                trace_id=f"{i + 1:032x}",
                name="chat scripted",
                source=SOURCE_HARNESS,
                run_ref=run_id,
                case_ref=case_id,
                request_model="gpt-4o-mini",
                usage=TokenUsage(input=100, output=10),
                client_cost_usd=Decimal("0.00002"),
                duration_ms=100 + i if duration is None else duration,
                **fields,
            )
            for i, case_id in enumerate(case_ids)
        ]
    )


__all__ = [
    "SOURCE_KEEPALIVE",
    "T0",
    "TRACE",
    "agent_trace",
    "harness_run_spans",
    "span",
]
