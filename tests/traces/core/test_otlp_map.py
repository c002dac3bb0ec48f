from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from opentelemetry.proto.common.v1.common_pb2 import KeyValue

from tests.traces.otlp_support import (
    CHAT_ATTRIBUTES,
    PARENT_ID,
    SPAN_ID,
    TRACE_ID,
    proto_export,
    proto_span,
    proto_value,
)
from traces.core.otlp_map import (
    CONTENT_ATTRIBUTES,
    FIELD_ATTRIBUTES,
    SpanRejected,
    is_content,
    map_export,
    map_span,
)
from traces.core.records import STATUS_ERROR, STATUS_OK, TokenUsage


def mapped(attributes: dict[str, Any], **kwargs: Any) -> Any:
    return map_span(proto_span(attributes), **kwargs)


def test_a_genai_chat_span_fills_every_column() -> None:
    record = map_span(proto_span(), resource={"service.name": "agent-x"})
    assert record.trace_id == TRACE_ID
    assert record.span_id == SPAN_ID
    assert record.parent_span_id == PARENT_ID
    assert record.name == "chat gpt-4o-mini"
    assert record.kind == "client"
    assert record.source == "otlp"
    assert record.started_at == datetime(2026, 5, 28, 20, 26, 40, tzinfo=UTC)
    assert record.latency_ms == 1250.0
    assert (record.operation, record.provider) == ("chat", "openai")
    assert (record.request_model, record.response_model) == (
        "gpt-4o-mini",
        "gpt-4o-mini-2024-07-18",
    )
    assert record.request_params == {"temperature": 0.2, "max_tokens": 256, "seed": 7}
    assert record.usage == TokenUsage(input=120, output=30, cached_input=100)
    assert record.finish_reason == "stop"
    assert record.status == STATUS_OK
    assert record.conversation_id == "conv-1"
    assert (record.run_ref, record.case_ref, record.thought_ref) == (
        "run-42",
        "case-a",
        None,
    )
    # What a column took is not kept twice; the resource's service name is.
    assert record.attributes == {"service.name": "agent-x"}


def test_older_genai_names_are_read() -> None:
    record = mapped(
        {
            "gen_ai.system": "anthropic",
            "gen_ai.request.model": "claude-3-5-sonnet",
            "gen_ai.usage.prompt_tokens": 10,
            "gen_ai.usage.completion_tokens": 4,
            "gen_ai.usage.cache_read_input_tokens": 8,
            "gen_ai.usage.cache_creation_input_tokens": 2,
        }
    )
    assert record.provider == "anthropic"
    assert record.usage == TokenUsage(
        input=10, output=4, cached_input=8, cache_write=2, reasoning=None
    )


def test_current_name_wins_over_the_older_one() -> None:
    record = mapped({"gen_ai.provider.name": "aws.bedrock", "gen_ai.system": "openai"})
    assert record.provider == "aws.bedrock"


def test_openinference_names_are_read() -> None:
    record = mapped(
        {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4o",
            "llm.provider": "openai",
            "llm.token_count.prompt": 50,
            "llm.token_count.completion": 5,
            "llm.token_count.total": 55,
            "llm.token_count.prompt_details.cache_read": 20,
            "llm.token_count.completion_details.reasoning": 3,
            "llm.invocation_parameters": '{"temperature": 0.5, "max_tokens": 9}',
            "session.id": "s-1",
        }
    )
    assert record.operation == "chat"
    assert (record.request_model, record.provider) == ("gpt-4o", "openai")
    assert record.usage == TokenUsage(input=50, output=5, cached_input=20, reasoning=3)
    assert record.request_params == {"temperature": 0.5, "max_tokens": 9}
    assert record.conversation_id == "s-1"
    # Unknown to the columns: kept as sent.
    assert record.attributes == {"llm.token_count.total": 55}


def test_openinference_kinds_become_operations() -> None:
    assert mapped({"openinference.span.kind": "TOOL"}).operation == "execute_tool"
    assert mapped({"openinference.span.kind": "AGENT"}).operation == "invoke_agent"
    assert mapped({"openinference.span.kind": "CHAIN"}).operation == "chain"
    both = {"openinference.span.kind": "LLM", "gen_ai.operation.name": "embeddings"}
    assert mapped(both).operation == "embeddings"


def test_genai_params_win_over_invocation_parameters() -> None:
    record = mapped(
        {
            "gen_ai.request.temperature": 0.1,
            "llm.invocation_parameters": '{"temperature": 0.9, "top_p": 1}',
        }
    )
    assert record.request_params == {"temperature": 0.1, "top_p": 1}


def test_invocation_parameters_that_are_not_json_are_kept_as_sent() -> None:
    record = mapped({"llm.invocation_parameters": "{temperature"})
    assert record.request_params == {}
    assert record.attributes == {"llm.invocation_parameters": "{temperature"}


def test_tool_agent_and_reasoning_attributes() -> None:
    record = mapped(
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1",
            "gen_ai.tool.call.arguments": '{"city": "Oslo"}',
            "gen_ai.agent.name": "planner",
            "gen_ai.agent.id": "agent-7",
            "gen_ai.usage.reasoning.output_tokens": 12,
        }
    )
    assert (record.operation, record.tool_name, record.agent_name) == (
        "execute_tool",
        "get_weather",
        "planner",
    )
    assert record.usage.reasoning == 12
    assert record.attributes == {
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.arguments": '{"city": "Oslo"}',
        "gen_ai.agent.name": "planner",
        "gen_ai.agent.id": "agent-7",
    }


def test_client_cost_and_time_to_first_chunk() -> None:
    record = mapped(
        {"gen_ai.usage.cost": 0.0125, "gen_ai.response.time_to_first_chunk": 0.25}
    )
    assert record.client_cost_usd == Decimal("0.0125000000")
    assert record.ttft_ms == 250.0
    assert mapped({"llm.cost.total": "0.5"}).client_cost_usd == Decimal("0.5")


def test_links_to_thought_run_and_case() -> None:
    record = mapped(
        {"evalsite.thought.id": 17, "evalsite.run.id": "r", "evalsite.case.id": "c"}
    )
    assert (record.thought_ref, record.run_ref, record.case_ref) == (17, "r", "c")


def test_span_attributes_win_over_resource_attributes() -> None:
    record = map_span(
        proto_span({"gen_ai.agent.name": "span-agent"}),
        resource={
            "gen_ai.agent.name": "resource-agent",
            "evalsite.run.id": "run-from-resource",
        },
    )
    assert (record.agent_name, record.run_ref) == ("span-agent", "run-from-resource")


def test_absent_usage_is_unknown_not_zero() -> None:
    record = mapped({"gen_ai.operation.name": "chat"})
    assert record.usage == TokenUsage()


def test_unknown_attributes_are_kept_as_sent() -> None:
    record = mapped(
        {
            "my.flag": True,
            "my.list": ["a", 1],
            "my.nan": float("nan"),
            "my.inf": float("-inf"),
            "my.nul": "a\x00b",
        }
    )
    assert record.attributes == {
        "my.flag": True,
        "my.list": ["a", 1],
        "my.nan": "NaN",
        "my.inf": "-Infinity",
        "my.nul": "a\\u0000b",
    }


def test_content_is_dropped_when_content_is_not_stored() -> None:
    attributes = {
        "gen_ai.prompt.0.content": "secret prompt",
        "gen_ai.completion.0.content": "secret answer",
        "gen_ai.input.messages": "[]",
        "llm.input_messages.0.message.content": "hi",
        "input.value": "hello",
        "output.value": "bye",
        "input.mime_type": "text/plain",
        "gen_ai.prompt_caching": "on",
    }
    span = proto_span(attributes)
    event = span.events.add(
        name="gen_ai.content.prompt", time_unix_nano=span.start_time_unix_nano
    )
    event.attributes.append(KeyValue(key="gen_ai.prompt", value=proto_value("secret")))
    dropped = map_span(span, store_content=False)
    assert dropped.attributes == {
        "input.mime_type": "text/plain",
        "gen_ai.prompt_caching": "on",
    }
    assert dropped.events == [
        {"name": "gen_ai.content.prompt", "time": "2026-05-28T20:26:40+00:00"}
    ]
    kept = map_span(span, store_content=True)
    assert kept.attributes == attributes
    assert kept.events[0]["attributes"] == {"gen_ai.prompt": "secret"}


def test_error_status_keeps_its_message() -> None:
    span = proto_span({"error.type": "RateLimitError"})
    span.status.code = 2
    assert map_span(span).status == STATUS_ERROR
    assert map_span(span).error == "RateLimitError"
    span.status.message = "429 from upstream"
    assert map_span(span).error == "429 from upstream"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (float("nan"), "input token count must be an integer, got NaN"),
        (-3, "input token count must be at least 0, got -3"),
        (1.5, "input token count must be an integer, got 1.5"),
        ("many", "input token count must be an integer, got 'many'"),
        (True, "input token count must be an integer, got bool"),
        ([1], "input token count must be an integer, got list"),
    ],
)
def test_bad_token_counts_reject_the_span(value: Any, reason: str) -> None:
    with pytest.raises(SpanRejected) as caught:
        mapped({"gen_ai.usage.input_tokens": value})
    assert str(caught.value) == reason


def test_whole_floats_and_digit_strings_are_token_counts() -> None:
    record = mapped(
        {"gen_ai.usage.input_tokens": 12.0, "gen_ai.usage.output_tokens": "7"}
    )
    assert (record.usage.input, record.usage.output) == (12, 7)


@pytest.mark.parametrize(
    ("attributes", "reason"),
    [
        ({"gen_ai.usage.cost": -1.0}, "cost must be a non-negative number"),
        ({"gen_ai.usage.cost": float("nan")}, "cost must be a non-negative number"),
        ({"gen_ai.usage.cost": "cheap"}, "cost must be a number"),
        ({"evalsite.thought.id": 0}, "evalsite.thought.id must be at least 1"),
        ({"evalsite.thought.id": "t-1"}, "evalsite.thought.id must be an integer"),
    ],
)
def test_bad_costs_and_thought_ids_reject_the_span(
    attributes: dict[str, Any], reason: str
) -> None:
    with pytest.raises(SpanRejected, match=reason):
        mapped(attributes)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"trace_id": b""}, "trace id is missing"),
        ({"trace_id": b"\x01" * 8}, "trace id must be 16 bytes (32 hex digits), got 8"),
        ({"trace_id": bytes(16)}, "trace id is all zeros"),
        ({"span_id": b""}, "span id is missing"),
        ({"span_id": b"\x01" * 9}, "span id must be 8 bytes (16 hex digits), got 9"),
        ({"parent_span_id": b"\x01" * 3}, "parent span id must be empty or 8 bytes"),
        ({"start_time_unix_nano": 0}, "start time is missing"),
        ({"end_time_unix_nano": 1}, "ends before it starts"),
    ],
)
def test_bad_ids_and_times_reject_the_span(change: dict[str, Any], reason: str) -> None:
    span = proto_span()
    for name, value in change.items():
        setattr(span, name, value)
    with pytest.raises(SpanRejected) as caught:
        map_span(span)
    assert str(caught.value).startswith(reason)


def test_an_export_keeps_good_spans_and_lists_the_rejected_with_their_place() -> None:
    bad = proto_span({"gen_ai.usage.output_tokens": -1}, span_id="00000000000000aa")
    good = proto_span(span_id="00000000000000bb")
    no_id = proto_span(span_id="00000000000000cc")
    no_id.span_id = b""
    result = map_export(proto_export([bad, good, no_id]))
    assert [r.span_id for r in result.records] == ["00000000000000bb"]
    assert result.rejected == 2
    assert result.reasons == [
        "resourceSpans[0].scopeSpans[0].spans[0]: output token count must be at "
        "least 0, got -1",
        "resourceSpans[0].scopeSpans[0].spans[2]: span id is missing",
    ]


def test_the_mapping_table_names_each_attribute_once() -> None:
    names = [name for names in FIELD_ATTRIBUTES.values() for name in names]
    assert len(names) == len(set(names))
    assert "gen_ai.usage.input_tokens" in FIELD_ATTRIBUTES["usage.input"]
    assert all(is_content(prefix) for prefix in CONTENT_ATTRIBUTES)
    assert not is_content("gen_ai.prompt_caching")


def test_chat_attributes_of_the_support_module_are_all_mapped() -> None:
    assert mapped(CHAT_ATTRIBUTES).attributes == {}
