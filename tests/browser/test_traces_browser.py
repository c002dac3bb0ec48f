"""The traces pages in a real Chromium: from a run page to a scenario's
trace, whose waterfall is drawn; the span list and the agent's spend chart;
every page fits a phone's width. Screenshots at 1280 and 390 px go to the
test artifacts (``browser/traces-*.png``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from tests.browser.browser_support import page_overflows
from tests.browser.conftest import PHONE
from tests.evals.harness_support import run_suite
from tests.traces.pages_support import TRACE, agent_trace, harness_run_spans, span
from traces.models import Span
from traces.services.spans import store_spans

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_run_page_leads_to_a_trace_whose_waterfall_is_drawn(
    page: Any,
    live_server: Any,
    owner: Any,
    agent: Any,
    suites: Any,
    log_in: Any,
    screenshot: Any,
) -> None:
    run = run_suite(suites / "smoke.jsonl")
    Span.objects.filter(run_ref=run.run_id).delete()
    cases = sorted(run.case_results.values_list("case_id", flat=True))
    harness_run_spans(run.run_id, cases, duration_ms=800)
    # The first scenario's trace also holds a tool call its model asked for.
    store_spans(
        [
            span(
                "f" * 16,
                trace_id=f"{1:032x}",
                parent_span_id=f"{1:016x}",
                name="execute_tool dig",
                tool_name="dig",
                start_ms=500,
                duration_ms=200,
                run_ref=run.run_id,
                case_ref=cases[0],
                attributes={"gen_ai.tool.call.arguments": '{"depth": 3}'},
            )
        ]
    )
    agent_trace(agent.pk, at=timezone.now())

    log_in("alice", "pw-alice")
    page.goto(f"{live_server.url}/evals/runs/{run.run_id}/")
    assert page.locator("#model-calls").is_visible()
    assert page.locator("#usage-table tbody tr").count() == len(cases)
    screenshot("traces-run")

    page.locator("#usage-table tbody tr").first.locator("text=trace").click()
    page.wait_for_url(f"{live_server.url}/traces/{1:032x}/")
    waterfall = page.locator("#waterfall")
    assert waterfall.is_visible()
    bars = page.locator("#waterfall .wf-bar")
    assert bars.count() == 2
    root, tool = (bars.nth(i).bounding_box() for i in range(2))
    track = page.locator("#waterfall .wf-track").first.bounding_box()
    assert root is not None and tool is not None and track is not None
    # The tool call starts part-way along the model call's bar, inside it.
    assert root["width"] == pytest.approx(track["width"], abs=2)
    assert root["x"] < tool["x"] < root["x"] + root["width"]
    assert page.locator("text=Situation frame sent to the model").count() == 1
    assert '"depth": 3' in page.inner_text(f"#span-{'f' * 16}")
    screenshot("traces-trace")
    page.set_viewport_size(PHONE)
    assert not page_overflows(page)
    assert page.locator("#waterfall .wf-bar").first.is_visible()

    page.goto(f"{live_server.url}/traces/")
    assert page.locator("#span-table tbody tr").count() == len(cases) + 5
    assert not page_overflows(page)
    screenshot("traces-span-list")

    page.goto(f"{live_server.url}/traces/{TRACE}/")
    assert page.locator("#waterfall .wf-bar").count() == 4
    assert page.locator(".wf-error").count() == 1
    assert not page_overflows(page)
    screenshot("traces-agent-trace")

    page.goto(f"{live_server.url}/stream/alpha/")
    page.wait_for_selector("#agent-spend .main-svg")
    assert not page_overflows(page)
    screenshot("traces-agent-spend")
    assert page.js_errors == []
