"""At phone width (390 px) in a real Chromium: a chart's title, legend and
axis labels never sit on one another (the compare page's rates, the PR
keepalive decisions per day), and the wide tables (a run's scenarios, the
trend's runs) are one card per row, so a model's output is readable and no
key column is off-screen. Screenshots at both widths land in
TEST_ARTIFACTS_DIR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute
from tests.browser.conftest import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The boxes of a drawn chart's title, legend, x tick labels and x title.
CHART_BOXES = """
(root) => {
  const box = (el) => {
    const b = el.getBoundingClientRect();
    return [b.left, b.top, b.right, b.bottom];
  };
  const all = (selector) => [...root.querySelectorAll(selector)].map(box);
  return {
    title: all(".gtitle"),
    legend: all("g.legend .traces"),
    labels: all("g.xtick text").concat(all(".g-xtitle text")),
  };
}
"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_chart_apart(page: Any, selector: str) -> None:
    chart = page.locator(f"{selector}.js-plotly-plot")
    chart.locator("svg.main-svg").first.wait_for()
    page.wait_for_timeout(300)
    boxes = chart.evaluate(CHART_BOXES)
    assert boxes["title"] and boxes["legend"] and boxes["labels"], boxes
    for title in boxes["title"]:
        for other in boxes["legend"] + boxes["labels"]:
            assert not overlaps(title, other), (selector, "title", title, other)
    for item in boxes["legend"]:
        for label in boxes["labels"]:
            assert not overlaps(item, label), (selector, "legend", item, label)


def recorded_run(suites: Path, script: str | None = None) -> Any:
    return run_execute(
        run=eval_run_create(
            suite_path=suites / "idle-v1.jsonl",
            profile="balanced",
            mode="thought_only",
            model="scripted",
            script_path=suites / script if script else None,
            schedule=False,
        )
    )


def test_chart_titles_and_legends_stay_apart_on_a_phone(
    page: Any,
    live_server: Any,
    owner: Any,
    suites: Path,
    log_in: Any,
    screenshot: Any,
) -> None:
    from prkeepalive.demo import load_demo

    load_demo(owner=owner)
    base = recorded_run(suites)
    candidate = recorded_run(suites, "idle-v1-regressed.script.jsonl")
    log_in("alice", "pw-alice")

    page.goto(
        f"{live_server.url}/evals/compare?base={base.run_id}"
        f"&candidate={candidate.run_id}"
    )
    screenshot("phone-compare")
    page.set_viewport_size(PHONE)
    assert_chart_apart(page, "#compare-rates")

    page.goto(f"{live_server.url}/prkeepalive/")
    screenshot("phone-prkeepalive")
    page.set_viewport_size(PHONE)
    assert_chart_apart(page, "#reason-histogram")
    assert page.js_errors == []


def test_run_and_trend_tables_are_cards_on_a_phone(
    page: Any,
    live_server: Any,
    owner: Any,
    suites: Path,
    log_in: Any,
    screenshot: Any,
) -> None:
    recorded_run(suites)
    run = recorded_run(suites, "idle-v1-regressed.script.jsonl")
    log_in("alice", "pw-alice")

    page.goto(f"{live_server.url}/evals/runs/{run.run_id}/")
    screenshot("phone-run")
    page.set_viewport_size(PHONE)
    output = page.locator("#scenario-table td.output").first
    result = page.locator('#scenario-table td[data-label="Result"]').first
    assert output.bounding_box()["width"] > 250
    result.scroll_into_view_if_needed()
    box = result.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert (
        output.evaluate("cell => getComputedStyle(cell, '::before').content")
        == '"Output: "'
    )

    page.goto(f"{live_server.url}/evals/trends?benchmark=idle-v1")
    screenshot("phone-trends")
    page.set_viewport_size(PHONE)
    # Responsive charts redraw at the new width a moment after the resize.
    page.wait_for_timeout(800)
    compare = page.locator('table.trend-table td[data-label="Compare"]').first
    compare.scroll_into_view_if_needed()
    box = compare.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate(
        "document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth"
    )
    assert page.js_errors == []
