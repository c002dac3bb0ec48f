"""The pages' reads: filters, keyset pages, who sees which spans, links."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from tests.builders import agent_make, user_make
from tests.traces.pages_support import T0, TRACE, agent_trace, harness_run_spans, span
from traces.core.records import SOURCE_HARNESS, SOURCE_KEEPALIVE, TokenUsage
from traces.selectors import (
    LIST_LIMIT,
    SpanFilters,
    agent_spend_days,
    cursor_parse,
    run_trace_ids,
    span_list,
    trace_id_of_case,
    trace_id_of_thought,
    trace_visible_spans,
)
from traces.services.spans import store_spans

pytestmark = pytest.mark.django_db


def names(page: Any) -> list[str]:
    return [s.name for s in page.spans]


def test_each_filter_keeps_only_its_spans(owner: Any, agent: Any) -> None:
    agent_trace(agent.pk)
    harness_run_spans("run-1", ["s:a", "s:b"])
    store_spans(
        [
            span(
                "9" * 16,
                trace_id="9" * 32,
                name="tick",
                source=SOURCE_KEEPALIVE,
                request_model="m",
                response_model="gpt-4o-mini-2024",
            )
        ]
    )

    def listed(**filters: Any) -> list[str]:
        return names(span_list(user=owner, filters=SpanFilters(**filters)))

    assert listed(model="mystery-model-9") == ["chat mystery"]
    # A model filter matches the response model as well as the request's.
    assert listed(model="gpt-4o-mini-2024") == ["tick"]
    assert len(listed(agent="alpha")) == 4
    assert listed(run="run-1", case="s:b") == ["chat scripted"]
    assert len(listed(source=SOURCE_HARNESS)) == 2
    assert listed(status="error") == ["chat mystery"]
    assert listed(agent="nobody") == []
    window = listed(
        since=T0 + timedelta(milliseconds=400), until=T0 + timedelta(milliseconds=800)
    )
    assert window == ["chat mystery", "execute_tool dig"]


def test_pages_follow_each_other_without_gaps_or_repeats(owner: Any) -> None:
    # Every span starts at the same instant: the pk breaks the tie.
    store_spans(
        [
            span(f"{i:016x}", trace_id=f"{i:032x}", name=f"s{i}")
            for i in range(1, LIST_LIMIT * 2 + 6)
        ]
    )
    seen: list[str] = []
    cursor = ""
    pages = 0
    while True:
        page = span_list(user=owner, filters=SpanFilters(), cursor=cursor)
        seen += names(page)
        pages += 1
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert pages == 3
    assert len(seen) == len(set(seen)) == LIST_LIMIT * 2 + 5


def test_a_stranger_sees_harness_spans_but_not_another_owners_agent(
    owner: Any, stranger: Any, staff: Any, agent: Any
) -> None:
    agent_trace(agent.pk)
    harness_run_spans("run-1", ["s:a"])
    everything = SpanFilters()
    assert len(span_list(user=stranger, filters=everything).spans) == 1
    assert len(span_list(user=owner, filters=everything).spans) == 5
    assert len(span_list(user=staff, filters=everything).spans) == 5
    assert trace_visible_spans(user=stranger, trace_id=TRACE) == []
    assert len(trace_visible_spans(user=owner, trace_id=TRACE)) == 4


def test_a_member_sees_the_agents_spans(member: Any, agent: Any) -> None:
    agent_trace(agent.pk)
    assert len(span_list(user=member, filters=SpanFilters()).spans) == 4


@pytest.mark.parametrize(
    "text", ["", "garbage", "2026-11-01T00:00:00_x", "2026-11-01T00:00:00_5", "_1"]
)
def test_a_cursor_of_another_shape_is_none(text: str) -> None:
    assert cursor_parse(text) is None


def test_thought_case_and_run_traces() -> None:
    store_spans([span("1" * 16, trace_id="b" * 32, thought_ref=41)])
    harness_run_spans("run-1", ["s:a", "s:b"])
    assert trace_id_of_thought(41) == "b" * 32
    assert trace_id_of_thought(42) == ""
    assert trace_id_of_case("run-1", "s:b") == f"{2:032x}"
    assert trace_id_of_case("run-1", "s:zzz") == ""
    assert run_trace_ids("run-1") == {"s:a": f"{1:032x}", "s:b": f"{2:032x}"}


def test_agent_spend_is_grouped_per_day_with_unpriced_calls_counted() -> None:
    owner = user_make("dora")
    agent = agent_make(owner=owner, name="dora-agent").agent
    store_spans(
        [
            span(
                "1" * 16,
                request_model="mystery-model-9",
                usage=TokenUsage(input=10, output=1),
            ),
            span(
                "2" * 16,
                request_model="mystery-model-9",
                client_cost_usd=Decimal("0.25"),
                usage=TokenUsage(input=5),
            ),
            span(
                "3" * 16,
                request_model="mystery-model-9",
                client_cost_usd=Decimal("0.5"),
                started_at=T0 + timedelta(days=1),
            ),
            span("4" * 16, name="tool", tool_name="dig"),
            span(
                "5" * 16,
                request_model="mystery-model-9",
                started_at=T0 - timedelta(days=40),
            ),
        ],
        agent_id=agent.pk,
    )
    days = agent_spend_days(agent_id=agent.pk, since=T0 - timedelta(days=1))
    assert [(d.day.isoformat(), d.calls, d.unpriced, d.cost_usd) for d in days] == [
        ("2026-11-20", 2, 1, Decimal("0.25")),
        ("2026-11-21", 1, 0, Decimal("0.5")),
    ]
    assert (days[0].input_tokens, days[0].output_tokens) == (15, 1)
    assert (days[1].input_tokens, days[1].output_tokens) == (None, None)
