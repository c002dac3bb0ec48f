"""OTLP exports for the ingestion tests, built per the spec: JSON documents
written as OTLP/JSON says (hex ids, integer enums, lowerCamelCase) and
protobuf messages built from the official classes."""

from __future__ import annotations

import gzip
import json
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import (
    ResourceSpans,
    ScopeSpans,
    Span,
)

TRACE_ID = "5b8efff798038103d269b633813fc60c"
SPAN_ID = "eee19b7ec3c1b174"
PARENT_ID = "eee19b7ec3c1b173"
START_NS = 1_780_000_000_000_000_000  # 2026-05-28T20:26:40Z
END_NS = START_NS + 1_250_000_000  # 1.25 s later

CHAT_ATTRIBUTES: dict[str, Any] = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
    "gen_ai.request.temperature": 0.2,
    "gen_ai.request.max_tokens": 256,
    "gen_ai.request.seed": 7,
    "gen_ai.response.finish_reasons": ["stop"],
    "gen_ai.usage.input_tokens": 120,
    "gen_ai.usage.output_tokens": 30,
    "gen_ai.usage.cache_read.input_tokens": 100,
    "gen_ai.conversation.id": "conv-1",
    "evalsite.run.id": "run-42",
    "evalsite.case.id": "case-a",
}


def json_value(value: Any) -> dict[str, Any]:
    """An OTLP/JSON ``AnyValue``."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [json_value(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": json_attributes(value)}}
    return {"stringValue": value}


def json_attributes(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": json_value(v)} for k, v in attributes.items()]


def json_span(
    attributes: dict[str, Any] | None = None,
    *,
    span_id: str = SPAN_ID,
    trace_id: str = TRACE_ID,
    **fields: Any,
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span_id,
        "parentSpanId": PARENT_ID,
        "name": "chat gpt-4o-mini",
        "kind": 3,
        "startTimeUnixNano": str(START_NS),
        "endTimeUnixNano": str(END_NS),
        "attributes": json_attributes(
            CHAT_ATTRIBUTES if attributes is None else attributes
        ),
        "status": {"code": 1},
    }
    span.update(fields)
    return span


def json_export(
    spans: list[dict[str, Any]], resource: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": json_attributes(
                        resource or {"service.name": "agent-under-test"}
                    )
                },
                "scopeSpans": [
                    {"scope": {"name": "tests", "version": "1"}, "spans": spans}
                ],
            }
        ]
    }


def json_body(spans: list[dict[str, Any]], **kwargs: Any) -> bytes:
    return json.dumps(json_export(spans, **kwargs)).encode()


def proto_value(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, list):
        out = AnyValue()
        out.array_value.values.extend(proto_value(v) for v in value)
        return out
    return AnyValue(string_value=value)


def proto_span(
    attributes: dict[str, Any] | None = None,
    *,
    span_id: str = SPAN_ID,
    trace_id: str = TRACE_ID,
    start: int = START_NS,
    end: int = END_NS,
) -> Span:
    span = Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex(span_id),
        parent_span_id=bytes.fromhex(PARENT_ID),
        name="chat gpt-4o-mini",
        kind=Span.SPAN_KIND_CLIENT,
        start_time_unix_nano=start,
        end_time_unix_nano=end,
    )
    for key, value in (CHAT_ATTRIBUTES if attributes is None else attributes).items():
        span.attributes.append(KeyValue(key=key, value=proto_value(value)))
    span.status.code = 1
    return span


def proto_export(
    spans: list[Span], resource: dict[str, Any] | None = None
) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    resource_spans: ResourceSpans = request.resource_spans.add()
    for key, value in (resource or {"service.name": "agent-under-test"}).items():
        resource_spans.resource.attributes.append(
            KeyValue(key=key, value=proto_value(value))
        )
    scope: ScopeSpans = resource_spans.scope_spans.add()
    scope.scope.name = "tests"
    scope.spans.extend(spans)
    return request


def proto_body(spans: list[Span], **kwargs: Any) -> bytes:
    return proto_export(spans, **kwargs).SerializeToString()


def gzipped(body: bytes) -> bytes:
    return gzip.compress(body)


def span_ids(count: int) -> list[str]:
    return [f"{index + 1:016x}" for index in range(count)]
