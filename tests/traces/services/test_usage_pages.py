"""A run's and an agent's usage in words, and the links to the traces pages."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from django.urls import reverse

from tests.builders import agent_make, user_make
from tests.traces.pages_support import T0, harness_run_spans, span
from traces.core.records import TokenUsage
from traces.services.spans import store_spans
from traces.services.usage_pages import (
    agent_spend,
    run_page_usage,
    spans_url,
    trace_url,
)

pytestmark = pytest.mark.django_db


def test_a_run_without_model_calls_has_no_usage() -> None:
    store_spans([span("1" * 16, run_ref="r1", name="tool", tool_name="dig")])
    assert run_page_usage("r1") is None
    assert run_page_usage("r-none") is None


def test_run_usage_totals_percentiles_and_rows_per_case() -> None:
    cases = [f"s:{i:02d}" for i in range(20)]
    harness_run_spans("r1", cases)
    usage = run_page_usage("r1")
    assert usage is not None
    latencies = [100.0 + i for i in range(20)]
    p50, p95, p99 = np.percentile(latencies, [50, 95, 99])
    assert (usage.calls, usage.unpriced, usage.cases_timed) == (20, 0, 20)
    assert (usage.input_tokens, usage.output_tokens) == ("2,000", "200")
    assert usage.cost == "$0.000400"
    assert (usage.latency_p50, usage.latency_p95, usage.latency_p99) == (
        f"{p50:.0f} ms",
        f"{p95:.0f} ms",
        f"{p99:.0f} ms",
    )
    assert [row.case_id for row in usage.cases] == cases
    first = usage.cases[0]
    assert (first.calls, first.input_tokens, first.cost, first.latency) == (
        1,
        "100",
        "$0.0000200",
        "100 ms",
    )
    assert first.trace_url == f"/traces/{1:032x}/"
    assert usage.spans_url == "/traces/?run=r1"


def test_an_unpriced_call_makes_the_case_unknown_and_the_run_partly_known() -> None:
    harness_run_spans("r1", ["s:a"])
    store_spans(
        [
            span(
                "e" * 16,
                trace_id="e" * 32,
                run_ref="r1",
                case_ref="s:b",
                request_model="mystery-model-9",
            )
        ]
    )
    usage = run_page_usage("r1")
    assert usage is not None
    assert usage.cost == "$0.0000200 + unknown (1 unpriced call)"
    assert usage.input_tokens == "not reported"
    rows = {row.case_id: row for row in usage.cases}
    assert rows["s:b"].cost == "unknown (1 unpriced call)"
    assert rows["s:b"].input_tokens == "not reported"


def test_every_call_unpriced_is_unknown_alone() -> None:
    store_spans(
        [span("e" * 16, run_ref="r1", case_ref="s:a", request_model="mystery-model-9")]
    )
    usage = run_page_usage("r1")
    assert usage is not None
    assert usage.cost == "unknown (1 unpriced call)"


def test_agent_spend_over_the_window_only(settings: Any) -> None:
    agent = agent_make(owner=user_make("dora"), name="dora-agent").agent
    store_spans(
        [
            span(
                "1" * 16,
                request_model="m-x",
                client_cost_usd=Decimal("0.5"),
                usage=TokenUsage(input=10, output=2),
            ),
            span("2" * 16, request_model="m-x", started_at=T0 - timedelta(days=2)),
            span(
                "3" * 16,
                request_model="m-x",
                client_cost_usd=Decimal("9"),
                started_at=T0 - timedelta(days=30),
            ),
        ],
        agent_id=agent.pk,
    )
    spend = agent_spend(agent_id=agent.pk, agent_name="dora-agent", days=30, now=T0)
    assert (spend.calls, spend.unpriced, spend.cost) == (
        2,
        1,
        "$0.5000 + unknown (1 unpriced call)",
    )
    assert (spend.input_tokens, spend.output_tokens) == ("10", "2")
    assert [d.day.isoformat() for d in spend.per_day] == ["2026-11-18", "2026-11-20"]
    assert spend.spans_url == "/traces/?agent=dora-agent"


def test_an_agent_with_no_calls_has_no_days_and_tokens_not_reported() -> None:
    agent = agent_make(owner=user_make("dora"), name="dora-agent").agent
    spend = agent_spend(agent_id=agent.pk, agent_name="dora-agent", days=7, now=T0)
    assert (spend.calls, spend.per_day, spend.input_tokens) == (0, (), "not reported")


def test_links_to_the_span_list_and_a_trace() -> None:
    assert spans_url() == "/traces/"
    assert spans_url(run="r 1", model="", agent="a") == "/traces/?agent=a&run=r+1"
    assert trace_url("") == ""
    assert (
        trace_url("a" * 32, span_id="b" * 16) == f"/traces/{'a' * 32}/#span-{'b' * 16}"
    )


@pytest.mark.parametrize("case_id", ["s:a#3", "with space", "naïve?x=1&y", "50%"])
def test_a_case_link_is_what_reverse_gives(case_id: str) -> None:
    harness_run_spans("run 1", [case_id])
    usage = run_page_usage("run 1")
    assert usage is not None
    row = usage.cases[0]
    assert row.case_url == reverse("evals:scenario-detail", args=["run 1", case_id])
    assert row.trace_url == reverse("traces:trace-detail", args=[f"{1:032x}"])


def test_a_case_id_no_address_can_hold_has_no_link() -> None:
    harness_run_spans("r1", ["a/b"])
    usage = run_page_usage("r1")
    assert usage is not None
    assert (usage.cases[0].case_id, usage.cases[0].case_url) == ("a/b", "")
