"""Texts and tool calls from the attribute names agents send."""

from __future__ import annotations

import json

from traces.core.span_content import (
    MAX_TEXT_CHARS,
    TOO_DEEP,
    json_text,
    span_texts,
    tool_calls,
)


def test_plain_prompt_and_completion_attributes() -> None:
    texts = span_texts({"gen_ai.prompt": "Hi?", "gen_ai.completion": "Hello."})
    assert (texts.prompt, texts.completion) == ("Hi?", "Hello.")


def test_semconv_messages_become_role_lines() -> None:
    messages = [
        {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
        {"role": "user", "parts": [{"type": "text", "content": "Where?"}]},
    ]
    texts = span_texts({"gen_ai.input.messages": json.dumps(messages)})
    assert texts.prompt == "system: Be brief.\nuser: Where?"
    assert texts.completion == ""


def test_indexed_openllmetry_and_openinference_messages_in_index_order() -> None:
    texts = span_texts(
        {
            "gen_ai.prompt.1.role": "user",
            "gen_ai.prompt.1.content": "second",
            "gen_ai.prompt.0.role": "system",
            "gen_ai.prompt.0.content": "first",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": "done",
        }
    )
    assert texts.prompt == "system: first\nuser: second"
    assert texts.completion == "assistant: done"


def test_a_huge_text_is_cut_for_the_page() -> None:
    texts = span_texts({"gen_ai.prompt": "x" * (MAX_TEXT_CHARS + 10)})
    assert len(texts.prompt) == MAX_TEXT_CHARS


def test_tool_span_arguments_are_indented_json_and_result_kept() -> None:
    calls = tool_calls(
        {
            "gen_ai.tool.call.arguments": '{"where": "garden", "depth": 3}',
            "gen_ai.tool.call.result": "found a key",
            "gen_ai.tool.call.id": "call_1",
        },
        tool_name="dig",
    )
    assert len(calls) == 1
    assert (calls[0].name, calls[0].call_id, calls[0].result) == (
        "dig",
        "call_1",
        "found a key",
    )
    assert json.loads(calls[0].arguments) == {"where": "garden", "depth": 3}
    assert "\n" in calls[0].arguments


def test_tool_calls_a_model_asked_for_in_its_output_messages() -> None:
    output = [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "c9", "name": "dig", "arguments": {"x": 1}}
            ],
        }
    ]
    calls = tool_calls({"gen_ai.output.messages": output})
    assert [(c.name, c.call_id, json.loads(c.arguments)) for c in calls] == [
        ("dig", "c9", {"x": 1})
    ]


def test_attributes_of_other_shapes_are_no_error() -> None:
    assert tool_calls({"gen_ai.output.messages": "not json"}) == ()
    assert span_texts({"gen_ai.input.messages": 42}).prompt == "42"
    assert span_texts({}).prompt == ""


def test_arguments_nested_past_what_json_can_walk_are_no_error() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    calls = tool_calls({"gen_ai.tool.call.arguments": deep}, tool_name="dig")
    assert calls[0].arguments == deep
    assert span_texts({"gen_ai.input.messages": deep}).prompt == deep[:MAX_TEXT_CHARS]
    nested: list = []
    for _ in range(200_000):
        nested = [nested]
    assert json_text(nested) == TOO_DEEP
