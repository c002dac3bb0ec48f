"""A real client: the official OpenTelemetry SDK and its OTLP/HTTP exporter
send spans to a live test server (protobuf, plain and gzip), and JSON
exports written per the OTLP/JSON spec go over real HTTP too."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, Status, StatusCode

from core.scopes import STREAM
from tests.builders import agent_make, thought_actionable
from tests.traces.otlp_support import gzipped, json_body, json_span, span_ids
from traces.models import Span

pytestmark = pytest.mark.django_db(transaction=True)


def finished_spans(thought_id: int | None = None) -> Any:
    """A GenAI agent's spans: an agent step with a chat call and a tool call."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create(
            {"service.name": "sdk-agent", "evalsite.run.id": "run-sdk"}
        )
    )
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span("invoke_agent planner") as step:
        step.set_attribute("gen_ai.operation.name", "invoke_agent")
        step.set_attribute("gen_ai.agent.name", "planner")
        with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.provider.name", "openai")
            chat.set_attribute("gen_ai.request.model", "gpt-4o")
            chat.set_attribute("gen_ai.response.model", "gpt-4o-2024-08-06")
            chat.set_attribute("gen_ai.request.temperature", 0.0)
            chat.set_attribute("gen_ai.request.max_tokens", 100)
            chat.set_attribute("gen_ai.request.seed", 3)
            chat.set_attribute("gen_ai.usage.input_tokens", 1000)
            chat.set_attribute("gen_ai.usage.output_tokens", 200)
            chat.set_attribute("gen_ai.response.finish_reasons", ["tool_calls"])
            chat.set_attribute("evalsite.case.id", "case-1")
            if thought_id is not None:
                chat.set_attribute("evalsite.thought.id", thought_id)
            chat.set_status(Status(StatusCode.OK))
        with tracer.start_as_current_span("execute_tool search") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "search")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"q": "oak"}')
    provider.shutdown()
    return memory.get_finished_spans()


def exporter(live_server: Any, key: str, **kwargs: Any) -> OTLPSpanExporter:
    return OTLPSpanExporter(
        endpoint=f"{live_server.url}/v1/traces",
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
        **kwargs,
    )


@pytest.mark.parametrize("compression", [Compression.NoCompression, Compression.Gzip])
def test_the_sdk_exporter_stores_a_genai_chat_span_linked_to_thought_and_run(
    live_server: Any, agent: Any, api_key: str, compression: Compression
) -> None:
    thought = thought_actionable(agent)
    spans = finished_spans(thought_id=thought.pk)
    result = exporter(live_server, api_key, compression=compression).export(spans)
    assert result == SpanExportResult.SUCCESS
    rows = {row.name: row for row in Span.objects.all()}
    assert set(rows) == {"invoke_agent planner", "chat gpt-4o", "execute_tool search"}
    chat = rows["chat gpt-4o"]
    assert chat.agent_id == agent.pk
    assert (chat.source, chat.kind, chat.status) == ("otlp", "client", "ok")
    assert (chat.provider, chat.request_model, chat.response_model) == (
        "openai",
        "gpt-4o",
        "gpt-4o-2024-08-06",
    )
    assert chat.request_params == {"temperature": 0.0, "max_tokens": 100, "seed": 3}
    assert (chat.input_tokens, chat.output_tokens) == (1000, 200)
    assert chat.cached_input_tokens is None
    assert chat.finish_reason == "tool_calls"
    assert (chat.thought_ref, chat.run_ref, chat.case_ref) == (
        thought.pk,
        "run-sdk",
        "case-1",
    )
    step = rows["invoke_agent planner"]
    assert chat.trace_id == step.trace_id
    assert chat.parent_span_id == step.span_id
    assert step.operation == "invoke_agent"
    assert step.attributes["gen_ai.agent.name"] == "planner"
    tool = rows["execute_tool search"]
    assert tool.tool_name == "search"
    assert tool.attributes["gen_ai.tool.call.arguments"] == '{"q": "oak"}'


def test_a_resend_by_the_exporter_stores_each_span_once(
    live_server: Any, api_key: str
) -> None:
    spans = finished_spans()
    sender = exporter(live_server, api_key)
    assert sender.export(spans) == SpanExportResult.SUCCESS
    assert sender.export(spans) == SpanExportResult.SUCCESS
    assert Span.objects.count() == 3


def test_the_sdk_exporter_with_a_key_without_the_scope_stores_nothing(
    live_server: Any, owner: Any
) -> None:
    created = agent_make(owner=owner, name="stream-only", scopes=[STREAM])
    result = exporter(live_server, created.api_key).export(finished_spans())
    assert result == SpanExportResult.FAILURE
    assert not Span.objects.exists()


def test_json_exports_over_http_plain_and_gzip(live_server: Any, api_key: str) -> None:
    url = f"{live_server.url}/v1/traces"
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
    ids = span_ids(3)
    with httpx.Client(timeout=10) as client:
        plain = client.post(
            url, content=json_body([json_span(span_id=ids[0])]), headers=headers
        )
        packed = client.post(
            url,
            content=gzipped(json_body([json_span(span_id=ids[1])])),
            headers={**headers, "Content-Encoding": "gzip"},
        )
        partial = client.post(
            url,
            content=json_body(
                [json_span({"gen_ai.usage.input_tokens": -1}, span_id=ids[2])]
            ),
            headers=headers,
        )
    assert (plain.status_code, plain.json()) == (200, {})
    assert (packed.status_code, packed.json()) == (200, {})
    assert partial.status_code == 200
    assert json.loads(partial.content)["partialSuccess"]["rejectedSpans"] == "1"
    assert sorted(Span.objects.values_list("span_id", flat=True)) == ids[:2]
