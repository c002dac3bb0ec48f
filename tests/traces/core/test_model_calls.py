"""traces.core.model_calls: an adapter's model call as a span record."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from stream.core.types import CallUsage, ModelCall
from traces.core.model_calls import call_ids, model_call_span
from traces.core.records import (
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    STATUS_ERROR,
    STATUS_OK,
    SpanRecord,
    TokenUsage,
)

AT = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def _openai_call(**changes: object) -> ModelCall:
    fields: dict[str, object] = {
        "provider": "openai",
        "request_model": "gpt-4o-mini",
        "temperature": 0.7,
        "top_p": 0.95,
        "max_tokens": 512,
        "seed": 42,
        "response_model": "gpt-4o-mini-2024-07-18",
        "response_id": "chatcmpl-1",
        "usage": CallUsage(120, 30, 100, 4),
        "started_at": AT,
        "ended_at": AT + timedelta(milliseconds=850),
        "latency_ms": 850.0,
        "ttft_ms": 120.0,
        "finish_reason": "stop",
        "retries": 1,
        "streamed": True,
    }
    fields.update(changes)
    return ModelCall(**fields)  # type: ignore[arg-type]


def test_ids_are_derived_from_the_parts_and_stable() -> None:
    trace_id, span_id = call_ids("run-1", "smoke:a#2")
    assert (len(trace_id), len(span_id)) == (32, 16)
    assert int(trace_id, 16) >= 0 and int(span_id, 16) >= 0
    assert call_ids("run-1", "smoke:a#2") == (trace_id, span_id)
    assert call_ids("run-1", "smoke:a#1")[0] != trace_id
    # The separator keeps ("ab", "c") and ("a", "bc") apart.
    assert call_ids("ab", "c") != call_ids("a", "bc")


def test_a_streamed_openai_call_becomes_a_client_chat_span() -> None:
    ids = call_ids("run-1", "s1")
    record = model_call_span(
        _openai_call(),
        source=SOURCE_HARNESS,
        ids=ids,
        started_at=AT - timedelta(hours=1),
        run_ref="run-1",
        case_ref="s1",
        attributes={"evalsite.artifact": "scenarios/s1.json"},
    )
    assert record == SpanRecord(
        trace_id=ids[0],
        span_id=ids[1],
        name="chat gpt-4o-mini",
        started_at=AT,
        ended_at=AT + timedelta(milliseconds=850),
        source=SOURCE_HARNESS,
        kind="client",
        operation="chat",
        provider="openai",
        request_model="gpt-4o-mini",
        response_model="gpt-4o-mini-2024-07-18",
        request_params={
            "temperature": 0.7,
            "top_p": 0.95,
            "max_tokens": 512,
            "seed": 42,
        },
        usage=TokenUsage(input=120, output=30, cached_input=100, reasoning=4),
        client_cost_usd=None,
        latency_ms=850.0,
        ttft_ms=120.0,
        finish_reason="stop",
        retries=1,
        status=STATUS_OK,
        run_ref="run-1",
        case_ref="s1",
        attributes={
            "evalsite.artifact": "scenarios/s1.json",
            "gen_ai.response.id": "chatcmpl-1",
            "gen_ai.request.stream": True,
        },
    )


def test_absent_usage_stays_unknown() -> None:
    record = model_call_span(
        _openai_call(usage=None),
        source=SOURCE_HARNESS,
        ids=call_ids("x"),
        started_at=AT,
    )
    assert record.usage == TokenUsage(None, None, None, None, None)
    assert record.client_cost_usd is None


def test_a_failed_call_is_an_error_span_with_its_retries() -> None:
    failed = _openai_call(
        usage=None,
        response_model="",
        response_id="",
        finish_reason="",
        ttft_ms=None,
        retries=2,
        streamed=False,
        error="model_unavailable: unavailable after 3 attempts: HTTP 502",
    )
    record = model_call_span(
        failed, source=SOURCE_HARNESS, ids=call_ids("x"), started_at=AT
    )
    assert (record.status, record.error, record.retries) == (
        STATUS_ERROR,
        "model_unavailable: unavailable after 3 attempts: HTTP 502",
        2,
    )
    assert record.attributes == {}


def test_a_builtin_call_costs_nothing_and_takes_the_given_start() -> None:
    call = ModelCall(
        provider="evalsite", request_model="baseline-v1", seed=1, latency_ms=2.5
    )
    record = model_call_span(
        call,
        source=SOURCE_KEEPALIVE,
        ids=call_ids("keepalive", "7", "1000"),
        started_at=AT,
        thought_ref=31,
        prompt="FRAME",
        completion="It is quiet.",
    )
    assert record.client_cost_usd == Decimal(0)
    assert (record.started_at, record.ended_at) == (
        AT,
        AT + timedelta(milliseconds=2.5),
    )
    assert record.thought_ref == 31
    assert record.attributes == {
        "gen_ai.prompt": "FRAME",
        "gen_ai.completion": "It is quiet.",
    }
    assert record.request_params == {"seed": 1}
