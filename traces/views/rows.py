"""What one span shows on the span list and in a trace: figures in words
(tokens "not reported", cost "unknown", never 0 for unknown), links to the
thought, run and scenario it belongs to, and its texts and tool calls.

A harness span's prompt and output are read from the scenario artifact
through ``evals.facade`` (stored there once, not in the span).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.urls import NoReverseMatch, reverse

from evals.facade import CaseTexts, case_texts
from traces.core.records import (
    COST_UNKNOWN,
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    SOURCE_OTLP,
)
from traces.core.span_content import (
    SpanTexts,
    ToolCall,
    json_text,
    span_texts,
    tool_calls,
)
from traces.core.usage_text import (
    UNKNOWN,
    cost_text,
    latency_text,
    tokens_text,
    usd_text,
)
from traces.core.waterfall import WaterfallRow
from traces.models import Span
from traces.services.usage_pages import trace_url

# Attributes already shown elsewhere on the span's card.
SHOWN_ATTRIBUTES = (
    "gen_ai.prompt",
    "gen_ai.completion",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.tool.call.id",
    "gen_ai.tool.name",
    "input.value",
    "output.value",
)
SHOWN_PREFIXES = (
    "gen_ai.prompt.",
    "gen_ai.completion.",
    "llm.input_messages.",
    "llm.output_messages.",
)


SOURCE_LABELS = {
    SOURCE_HARNESS: "eval harness",
    SOURCE_KEEPALIVE: "keep-alive loop",
    SOURCE_OTLP: "sent by an agent",
}


def _url(name: str, *args: Any) -> str:
    """The page's address; "" for ids no page's address can hold."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


@dataclass(frozen=True, slots=True)
class Links:
    """Pages a span belongs to ("" where it has none, or none can be shown)."""

    thought: str = ""
    run: str = ""
    case: str = ""
    thought_pk: int | None = None
    run_id: str = ""
    case_id: str = ""


def links(span: Span) -> Links:
    thought = ""
    if span.thought_ref is not None and span.agent is not None:
        thought = _url("stream:thought-detail", span.agent.name, span.thought_ref)
    run = _url("evals:run-detail", span.run_ref) if span.run_ref else ""
    case = (
        _url("evals:scenario-detail", span.run_ref, span.case_ref)
        if span.run_ref and span.case_ref
        else ""
    )
    return Links(
        thought=thought,
        run=run,
        case=case,
        thought_pk=span.thought_ref,
        run_id=span.run_ref,
        case_id=span.case_ref,
    )


def is_model_call(span: Span) -> bool:
    return bool(span.request_model or span.response_model)


def span_cost(span: Span) -> str:
    """The span's cost: dollars, "unknown" for an unpriced model call, ""
    for a span that is no model call."""
    if span.cost_usd is not None:
        return usd_text(Decimal(span.cost_usd))
    if span.cost_source == COST_UNKNOWN or is_model_call(span):
        return UNKNOWN
    return ""


def _tokens(span: Span, count: int | None) -> str:
    return tokens_text(count) if is_model_call(span) else ""


@dataclass(frozen=True, slots=True)
class ListRow:
    span: Span
    source: str
    model: str
    input_tokens: str
    output_tokens: str
    cost: str
    latency: str
    trace_url: str
    links: Links


def list_row(span: Span) -> ListRow:
    return ListRow(
        span=span,
        source=SOURCE_LABELS.get(span.source, span.source),
        model=span.response_model or span.request_model,
        input_tokens=_tokens(span, span.input_tokens),
        output_tokens=_tokens(span, span.output_tokens),
        cost=span_cost(span),
        latency=latency_text(span.latency_ms),
        trace_url=trace_url(span.trace_id, span_id=span.span_id),
        links=links(span),
    )


@dataclass(frozen=True, slots=True)
class TraceRow:
    span: Span
    depth: int
    indent_em: float
    offset_ms: float
    offset: str
    duration: str
    left_pct: float
    width_pct: float
    model: str
    figures: tuple[tuple[str, str], ...]
    params: tuple[tuple[str, str], ...]
    texts: SpanTexts
    texts_from: str
    tools: tuple[ToolCall, ...]
    attributes: tuple[tuple[str, str], ...]
    events: tuple[tuple[str, str], ...]
    links: Links


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json_text(value)


def _figures(span: Span) -> tuple[tuple[str, str], ...]:
    """The span's figures as (label, text), only those it has."""
    rows: list[tuple[str, str]] = []
    if is_model_call(span):
        rows += [
            ("Input tokens", tokens_text(span.input_tokens)),
            ("Output tokens", tokens_text(span.output_tokens)),
        ]
        for label, count in (
            ("Cached input tokens", span.cached_input_tokens),
            ("Reasoning tokens", span.reasoning_tokens),
        ):
            if count is not None:
                rows.append((label, tokens_text(count)))
        cost = span_cost(span)
        if span.price_version and span.cost_source == "computed":
            cost += f" (price table {span.price_version})"
        elif span.cost_source == "client":
            cost += " (sent by the client)"
        rows.append(("Cost", cost))
    rows.append(("Latency", latency_text(span.latency_ms)))
    if span.ttft_ms is not None:
        rows.append(("Time to first token", latency_text(span.ttft_ms)))
    for label, value in (
        ("Provider", span.provider),
        ("Finish reason", span.finish_reason),
        ("Conversation", span.conversation_id),
    ):
        if value:
            rows.append((label, value))
    if span.retries:
        rows.append(("Retries", str(span.retries)))
    return tuple(rows)


# A trace's harness spans of one case read its artifact once.
CaseTextsCache = dict[tuple[str, str], CaseTexts | None]


def _texts(span: Span, cache: CaseTextsCache) -> tuple[SpanTexts, str]:
    """The span's prompt and completion and where they came from."""
    if span.source == SOURCE_HARNESS and span.run_ref and span.case_ref:
        key = (span.run_ref, span.case_ref)
        if key not in cache:
            cache[key] = case_texts(*key)
        found = cache[key]
        if found is not None:
            return SpanTexts(prompt=found.prompt, completion=found.output), "artifact"
    texts = span_texts(span.attributes if isinstance(span.attributes, dict) else {})
    return texts, "span" if texts.prompt or texts.completion else ""


def _other_attributes(attributes: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(attributes, dict):
        return ()
    return tuple(
        (key, _value_text(value))
        for key, value in sorted(attributes.items())
        if key not in SHOWN_ATTRIBUTES and not key.startswith(SHOWN_PREFIXES)
    )


def _events(events: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(events, list):
        return ()
    return tuple(
        (
            str(event.get("name", "")) if isinstance(event, dict) else "",
            _value_text(
                event.get("attributes", {}) if isinstance(event, dict) else event
            ),
        )
        for event in events
    )


def waterfall_row(
    span: Span, laid: WaterfallRow, *, cache: CaseTextsCache | None = None
) -> TraceRow:
    """One span of the waterfall; ``cache`` shared by a trace's rows."""
    texts, texts_from = _texts(span, {} if cache is None else cache)
    attributes = span.attributes if isinstance(span.attributes, dict) else {}
    params = span.request_params if isinstance(span.request_params, dict) else {}
    return TraceRow(
        span=span,
        depth=laid.depth,
        indent_em=min(laid.depth, 12) * 1.0,
        offset_ms=laid.offset_ms,
        offset=latency_text(laid.offset_ms),
        duration=latency_text(laid.duration_ms),
        left_pct=laid.left_pct,
        width_pct=laid.width_pct,
        model=span.response_model or span.request_model,
        figures=_figures(span),
        params=tuple((k, _value_text(v)) for k, v in sorted(params.items())),
        texts=texts,
        texts_from=texts_from,
        tools=tool_calls(attributes, tool_name=span.tool_name),
        attributes=_other_attributes(attributes),
        events=_events(span.events),
        links=links(span),
    )


@dataclass(frozen=True, slots=True)
class TraceSummary:
    spans: int
    calls: int
    duration: str
    input_tokens: str
    output_tokens: str
    cost: str
    errors: int
    agent: str
    links: Links


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def trace_summary(spans: list[Span], *, total_ms: float) -> TraceSummary:
    """The trace's totals over its model calls, and where it belongs (the
    first span's links that have one)."""
    calls = [s for s in spans if is_model_call(s)]
    priced = [Decimal(s.cost_usd) for s in calls if s.cost_usd is not None]
    unpriced = sum(1 for s in calls if s.cost_usd is None)
    found = [links(s) for s in spans]
    first_thought = next((f for f in found if f.thought_pk is not None), Links())
    first_run = next((f for f in found if f.run_id), Links())
    first_case = next((f for f in found if f.case_id), Links())
    agent = next((s.agent.name for s in spans if s.agent is not None), "")
    return TraceSummary(
        spans=len(spans),
        calls=len(calls),
        duration=latency_text(total_ms),
        input_tokens=tokens_text(_sum([s.input_tokens for s in calls])),
        output_tokens=tokens_text(_sum([s.output_tokens for s in calls])),
        cost=cost_text(sum(priced, Decimal(0)) if priced else None, unpriced=unpriced)
        if calls
        else "",
        errors=sum(1 for s in spans if s.status == "error"),
        agent=agent,
        links=Links(
            thought=first_thought.thought,
            run=first_run.run,
            case=first_case.case,
            thought_pk=first_thought.thought_pk,
            run_id=first_run.run_id,
            case_id=first_case.case_id,
        ),
    )
