"""OTLP spans into span records: the attribute mapping.

``map_export`` turns a decoded ``ExportTraceServiceRequest`` into
``SpanRecord``s and the reasons for the spans it refused. A span's
attributes are read through ``FIELD_ATTRIBUTES`` (first name present wins;
a span's own attribute wins over its resource's, so a process may set
``evalsite.run.id`` or ``gen_ai.agent.name`` once on its resource) and
``REQUEST_PARAMS``; both the current OpenTelemetry GenAI names, their older
spellings and OpenInference's ``llm.*`` names are read. The attributes a
column took are not kept twice (``gen_ai.agent.name``, which has no
column, is); every other attribute is kept in
``attributes`` as sent (with ``service.name`` of the resource and the
span's links). Content attributes (``CONTENT_ATTRIBUTES``: prompts,
completions, input and output messages) are dropped, from the span and its
events, when the caller does not store content.

The link attributes, evalsite's own: ``evalsite.thought.id`` (a thought's
id, a positive integer), ``evalsite.run.id`` (an eval run's id) and
``evalsite.case.id`` (a scenario's id within that run). A client's cost is
``gen_ai.usage.cost`` (or OpenInference's ``llm.cost.total``), in US
dollars; it wins over the price table's.

A span is refused, with its reason, when its trace id is not 16 bytes or
its span id not 8 (or either is all zeros), its parent id is neither empty
nor 8 bytes, its start time is missing, it ends before it starts, a token
count is not a non-negative integer (NaN, negative, 1.5, "many"), its cost
is not a non-negative number, or its thought id is not a positive integer.
The other spans of the export are kept. Deterministic, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span as OtlpSpan

from core.text import storable
from traces.core.otlp_values import (
    SpanRejected,
    attribute_dict,
    cost_usd,
    finish_reason_text,
    json_safe,
    seconds_as_ms,
    text_value,
    thought_id,
    token_count,
)
from traces.core.records import (
    SOURCE_OTLP,
    STATUS_ERROR,
    STATUS_OK,
    STATUS_UNSET,
    SpanRecord,
    TokenUsage,
)

# SpanRecord field -> the attributes read for it, first present wins.
FIELD_ATTRIBUTES: Final[dict[str, tuple[str, ...]]] = {
    "operation": ("gen_ai.operation.name",),
    "provider": ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"),
    "request_model": ("gen_ai.request.model", "llm.model_name"),
    "response_model": ("gen_ai.response.model",),
    "usage.input": (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "llm.token_count.prompt",
    ),
    "usage.output": (
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "llm.token_count.completion",
    ),
    "usage.cached_input": (
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
        "gen_ai.usage.input_tokens.cached",
        "llm.token_count.prompt_details.cache_read",
    ),
    "usage.cache_write": (
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.cache_creation_input_tokens",
        "gen_ai.usage.input_tokens.cache_write",
        "llm.token_count.prompt_details.cache_write",
    ),
    "usage.reasoning": (
        "gen_ai.usage.reasoning.output_tokens",
        "gen_ai.usage.reasoning_tokens",
        "llm.token_count.completion_details.reasoning",
    ),
    "client_cost_usd": ("gen_ai.usage.cost", "llm.cost.total"),
    "finish_reason": ("gen_ai.response.finish_reasons",),
    "ttft_ms": ("gen_ai.response.time_to_first_chunk",),  # seconds, sent
    "conversation_id": ("gen_ai.conversation.id", "session.id"),
    "tool_name": ("gen_ai.tool.name", "tool.name"),
    "agent_name": ("gen_ai.agent.name",),
    "thought_ref": ("evalsite.thought.id",),
    "run_ref": ("evalsite.run.id",),
    "case_ref": ("evalsite.case.id",),
}
# Request parameters: attribute -> key in ``request_params``. OpenInference's
# ``llm.invocation_parameters`` (a JSON object) fills the keys these leave.
REQUEST_PARAMS: Final[dict[str, str]] = {
    "gen_ai.request.temperature": "temperature",
    "gen_ai.request.max_tokens": "max_tokens",
    "gen_ai.request.top_p": "top_p",
    "gen_ai.request.top_k": "top_k",
    "gen_ai.request.seed": "seed",
    "gen_ai.request.frequency_penalty": "frequency_penalty",
    "gen_ai.request.presence_penalty": "presence_penalty",
    "gen_ai.request.stop_sequences": "stop_sequences",
    "gen_ai.request.choice.count": "choice_count",
    "gen_ai.request.stream": "stream",
}
INVOCATION_PARAMETERS: Final = "llm.invocation_parameters"
# OpenInference's span kind, when no gen_ai.operation.name says more.
OPENINFERENCE_KIND: Final = "openinference.span.kind"
OPENINFERENCE_OPERATIONS: Final = {
    "LLM": "chat",
    "EMBEDDING": "embeddings",
    "TOOL": "execute_tool",
    "AGENT": "invoke_agent",
    "CHAIN": "chain",
    "RETRIEVER": "retrieval",
    "RERANKER": "rerank",
    "GUARDRAIL": "guardrail",
    "EVALUATOR": "evaluate",
}
# Prompt and completion text; an attribute is content when its name is one
# of these or starts with one and a dot (gen_ai.prompt.0.content).
CONTENT_ATTRIBUTES: Final = (
    "gen_ai.prompt",
    "gen_ai.completion",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "llm.input_messages",
    "llm.output_messages",
    "llm.prompts",
    "input.value",
    "output.value",
)
SPAN_KINDS: Final = (
    "unspecified",
    "internal",
    "server",
    "client",
    "producer",
    "consumer",
)
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_FIELD_OF: Final = {
    name: (field_name, rank)
    for field_name, names in FIELD_ATTRIBUTES.items()
    for rank, name in enumerate(names)
}
# Fields the span table has no column for: their attributes stay in
# ``attributes`` too.
KEPT_FIELDS: Final = ("agent_name",)


@dataclass(frozen=True, slots=True)
class MappedExport:
    """The spans an export gave, and why the others were refused."""

    records: list[SpanRecord] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        return len(self.reasons)


def map_export(
    request: ExportTraceServiceRequest, *, store_content: bool = True
) -> MappedExport:
    """Every span of ``request`` as a record, or as a reason it was refused
    (``"resourceSpans[0].scopeSpans[0].spans[3]: ..."``)."""
    mapped = MappedExport()
    for r_index, resource_spans in enumerate(request.resource_spans):
        resource = attribute_dict(resource_spans.resource.attributes)
        from_resource = field_values(resource)
        for s_index, scope_spans in enumerate(resource_spans.scope_spans):
            for index, span in enumerate(scope_spans.spans):
                try:
                    record = map_span(
                        span,
                        resource=resource,
                        store_content=store_content,
                        from_resource=from_resource,
                    )
                except SpanRejected as exc:
                    where = (
                        f"resourceSpans[{r_index}].scopeSpans[{s_index}].spans[{index}]"
                    )
                    mapped.reasons.append(f"{where}: {exc}")
                else:
                    mapped.records.append(record)
    return mapped


def map_span(
    span: OtlpSpan,
    *,
    resource: Mapping[str, Any] | None = None,
    store_content: bool = True,
    from_resource: Mapping[str, Any] | None = None,
) -> SpanRecord:
    """One span as a record; ``SpanRejected`` with the reason otherwise.
    ``from_resource`` is ``field_values(resource)``, when the caller has it."""
    trace_id = _id(span.trace_id, 16, "trace id")
    span_id = _id(span.span_id, 8, "span id")
    parent = span.parent_span_id
    if parent and len(parent) != 8:
        raise SpanRejected(
            f"parent span id must be empty or 8 bytes (16 hex digits), "
            f"got {len(parent)} bytes"
        )
    start, end = span.start_time_unix_nano, span.end_time_unix_nano
    if not start:
        raise SpanRejected("start time is missing")
    if end < start:
        raise SpanRejected("ends before it starts")
    attributes = attribute_dict(span.attributes)
    resource = resource or {}
    if from_resource is None:
        from_resource = field_values(resource)
    values, kept, params = _sorted_attributes(attributes)
    if from_resource:
        values = {**from_resource, **values}
    pick = values.get

    operation = text_value(pick("operation"))
    kind_value = attributes.get(OPENINFERENCE_KIND)
    if not operation and isinstance(kind_value, str):
        operation = OPENINFERENCE_OPERATIONS.get(kind_value.upper(), kind_value.lower())
    usage = TokenUsage(
        input=token_count(pick("usage.input"), "input token count"),
        output=token_count(pick("usage.output"), "output token count"),
        cached_input=token_count(
            pick("usage.cached_input"), "cached input token count"
        ),
        cache_write=token_count(pick("usage.cache_write"), "cache write token count"),
        reasoning=token_count(pick("usage.reasoning"), "reasoning token count"),
    )
    status, error = _status(span, attributes)
    if INVOCATION_PARAMETERS in kept:
        _invocation_parameters(params, kept)
    if not store_content:
        kept = without_content(kept)
    if "service.name" in resource and "service.name" not in kept:
        kept["service.name"] = resource["service.name"]
    if span.links:
        kept["otel.links"] = [
            {"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex()}
            for link in span.links
        ]
    kind = span.kind
    return SpanRecord(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent.hex(),
        name=storable(span.name),
        started_at=_time(start),
        ended_at=_time(end),
        source=SOURCE_OTLP,
        kind=SPAN_KINDS[kind] if 0 <= kind < len(SPAN_KINDS) else "unspecified",
        operation=operation,
        provider=text_value(pick("provider")),
        request_model=text_value(pick("request_model")),
        response_model=text_value(pick("response_model")),
        request_params=params,
        usage=usage,
        client_cost_usd=cost_usd(pick("client_cost_usd")),
        latency_ms=(end - start) / 1e6,
        ttft_ms=seconds_as_ms(pick("ttft_ms")),
        finish_reason=finish_reason_text(pick("finish_reason")),
        status=status,
        error=error,
        conversation_id=text_value(pick("conversation_id")),
        tool_name=text_value(pick("tool_name")),
        agent_name=text_value(pick("agent_name")),
        thought_ref=thought_id(pick("thought_ref")),
        run_ref=text_value(pick("run_ref")),
        case_ref=text_value(pick("case_ref")),
        attributes=kept,
        events=[_event(event, store_content) for event in span.events],
    )


def field_values(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """``{field: value}`` for the fields of ``FIELD_ATTRIBUTES`` that
    ``attributes`` carry (the first name of the table's order wins)."""
    found: dict[str, tuple[int, Any]] = {}
    for key, value in attributes.items():
        hit = _FIELD_OF.get(key)
        if hit is not None:
            name, rank = hit
            prior = found.get(name)
            if prior is None or rank < prior[0]:
                found[name] = (rank, value)
    return {name: value for name, (_, value) in found.items()}


def is_content(name: str) -> bool:
    """Whether the attribute ``name`` holds prompt or completion text."""
    return any(
        name == prefix or name.startswith(prefix + ".") for prefix in CONTENT_ATTRIBUTES
    )


def without_content(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """``attributes`` less the content attributes."""
    return {k: v for k, v in attributes.items() if not is_content(k)}


def _id(raw: bytes, size: int, what: str) -> str:
    if len(raw) != size:
        if not raw:
            raise SpanRejected(f"{what} is missing")
        raise SpanRejected(
            f"{what} must be {size} bytes ({size * 2} hex digits), got {len(raw)} bytes"
        )
    if not any(raw):
        raise SpanRejected(f"{what} is all zeros")
    return raw.hex()


def _time(nanos: int) -> datetime:
    return _EPOCH + timedelta(microseconds=nanos // 1000)


def _status(span: OtlpSpan, attributes: Mapping[str, Any]) -> tuple[str, str]:
    code = span.status.code
    if code == 2:
        message = storable(span.status.message) or text_value(
            attributes.get("error.type")
        )
        return STATUS_ERROR, message
    if code == 1:
        return STATUS_OK, ""
    return STATUS_UNSET, ""


def _sorted_attributes(
    attributes: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """One pass over a span's attributes: the fields they give (as
    ``field_values``), the attributes kept, and the request parameters."""
    found: dict[str, tuple[int, Any]] = {}
    kept: dict[str, Any] = {}
    params: dict[str, Any] = {}
    for key, value in attributes.items():
        hit = _FIELD_OF.get(key)
        if hit is not None:
            name, rank = hit
            prior = found.get(name)
            if prior is None or rank < prior[0]:
                found[name] = (rank, value)
            if name in KEPT_FIELDS:
                kept[key] = value
            continue
        param = REQUEST_PARAMS.get(key)
        if param is not None:
            params[param] = value
        elif key != OPENINFERENCE_KIND:
            kept[key] = value
    return {name: value for name, (_, value) in found.items()}, kept, params


def _invocation_parameters(params: dict[str, Any], kept: dict[str, Any]) -> None:
    """OpenInference's JSON parameters into ``params`` (the GenAI ones
    win); kept as sent when they are no JSON object."""
    invocation = kept[INVOCATION_PARAMETERS]
    if not isinstance(invocation, str):
        return
    try:
        parsed = orjson.loads(invocation)
    except orjson.JSONDecodeError:
        return
    if isinstance(parsed, dict):
        del kept[INVOCATION_PARAMETERS]
        for key, value in parsed.items():
            params.setdefault(storable(str(key)), json_safe(value))


def _event(event: OtlpSpan.Event, store_content: bool) -> dict[str, Any]:
    attributes = attribute_dict(event.attributes)
    if not store_content:
        attributes = without_content(attributes)
    out: dict[str, Any] = {"name": storable(event.name)}
    if event.time_unix_nano:
        out["time"] = _time(event.time_unix_nano).isoformat()
    if attributes:
        out["attributes"] = attributes
    return out
