"""What a span's attributes say about its prompt, its completion and the
tools it called, in the names the GenAI semantic conventions, OpenLLMetry
and OpenInference use.

Texts come out as plain "role: content" lines, tool arguments as
indented JSON when they are JSON. Attributes of any other shape are left
alone (never an error: an agent sends what it sends). Deterministic, no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Texts longer than this are cut on the page (the span keeps them whole).
MAX_TEXT_CHARS = 20_000

PROMPT_KEYS = ("gen_ai.prompt", "gen_ai.input.messages", "input.value")
COMPLETION_KEYS = ("gen_ai.completion", "gen_ai.output.messages", "output.value")
# Indexed, flattened messages: OpenLLMetry's gen_ai.prompt.0.content and
# OpenInference's llm.input_messages.0.message.content.
PROMPT_PREFIXES = ("gen_ai.prompt.", "llm.input_messages.")
COMPLETION_PREFIXES = ("gen_ai.completion.", "llm.output_messages.")
_INDEXED = re.compile(r"(\d+)\.(?:message\.)?(role|content)")


@dataclass(frozen=True, slots=True)
class SpanTexts:
    prompt: str
    completion: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    call_id: str
    arguments: str
    result: str


TOO_DEEP = "(nested too deeply to show)"


def _json_text(value: Any) -> str:
    """``value`` as readable text: a JSON string or document indented."""
    if isinstance(value, str):
        text: str = value
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return text
        if isinstance(value, str):
            return value
    return json_text(value, indent=2)


def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON; a document nested past what ``json`` can walk
    says so rather than failing the page."""
    try:
        return json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=False)
    except (RecursionError, ValueError, TypeError):
        return TOO_DEEP


def _message_text(message: Any) -> str:
    if not isinstance(message, Mapping):
        return _json_text(message)
    role = str(message.get("role") or "")
    content = message.get("content")
    if content is None and isinstance(message.get("parts"), list):
        content = "\n".join(
            str(p.get("content") or "") if isinstance(p, Mapping) else str(p)
            for p in message["parts"]
            if not isinstance(p, Mapping) or p.get("type", "text") == "text"
        )
    body = content if isinstance(content, str) else _json_text(content or "")
    return f"{role}: {body}" if role else body


def _messages_text(value: Any) -> str:
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return value
        value = parsed
    if isinstance(value, list):
        return "\n".join(_message_text(m) for m in value)
    if isinstance(value, Mapping):
        return _message_text(value)
    return str(value)


def _indexed_text(attributes: Mapping[str, Any], prefixes: tuple[str, ...]) -> str:
    messages: dict[int, dict[str, str]] = {}
    for key, value in attributes.items():
        prefix = next((p for p in prefixes if key.startswith(p)), None)
        if prefix is None:
            continue
        match = _INDEXED.fullmatch(key[len(prefix) :])
        if match:
            messages.setdefault(int(match[1]), {})[match[2]] = str(value)
    return "\n".join(
        _message_text(messages[i]) for i in sorted(messages) if messages[i]
    )


def _text(
    attributes: Mapping[str, Any], keys: tuple[str, ...], prefixes: tuple[str, ...]
) -> str:
    for key in keys:
        if attributes.get(key) not in (None, "", []):
            return _messages_text(attributes[key])[:MAX_TEXT_CHARS]
    return _indexed_text(attributes, prefixes)[:MAX_TEXT_CHARS]


def span_texts(attributes: Mapping[str, Any]) -> SpanTexts:
    """The prompt and completion the attributes carry ("" when none)."""
    return SpanTexts(
        prompt=_text(attributes, PROMPT_KEYS, PROMPT_PREFIXES),
        completion=_text(attributes, COMPLETION_KEYS, COMPLETION_PREFIXES),
    )


def _output_tool_calls(value: Any) -> list[ToolCall]:
    """Tool calls a model asked for, from ``gen_ai.output.messages`` parts."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return []
    if not isinstance(value, list):
        return []
    calls = []
    for message in value:
        parts = message.get("parts") if isinstance(message, Mapping) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, Mapping) and part.get("type") == "tool_call":
                calls.append(
                    ToolCall(
                        name=str(part.get("name") or ""),
                        call_id=str(part.get("id") or ""),
                        arguments=_json_text(part.get("arguments") or ""),
                        result="",
                    )
                )
    return calls


def tool_calls(
    attributes: Mapping[str, Any], *, tool_name: str = ""
) -> tuple[ToolCall, ...]:
    """The tool call a tool span made (``gen_ai.tool.call.*``, OpenInference's
    ``tool.*``), and the calls a model span asked for in its output."""
    calls: list[ToolCall] = []
    arguments = attributes.get(
        "gen_ai.tool.call.arguments", attributes.get("tool.parameters")
    )
    result = attributes.get("gen_ai.tool.call.result")
    name = tool_name or str(
        attributes.get("gen_ai.tool.name") or attributes.get("tool.name") or ""
    )
    if name or arguments is not None or result is not None:
        calls.append(
            ToolCall(
                name=name,
                call_id=str(attributes.get("gen_ai.tool.call.id") or ""),
                arguments=_json_text(arguments) if arguments is not None else "",
                result=_json_text(result) if result is not None else "",
            )
        )
    calls.extend(_output_tool_calls(attributes.get("gen_ai.output.messages")))
    return tuple(calls)
