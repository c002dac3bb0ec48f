"""The compare page in Chromium leads with its verdicts: the forest plot is
drawn (one row per metric, the verdict word beside it, inconclusive in
grey), the verdict table reads the same word, and on a phone the table keeps
every figure (n × K included)."""

from __future__ import annotations

from typing import Any

import pytest

from evals.models import Run
from tests.evals.compare_support import failing_first, posted_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def posted(run_id: str, failing: int, minutes: int) -> Run:
    return posted_run("pack", run_id, failing_first(failing), minutes=minutes)


def forest(page: Any) -> Any:
    page.wait_for_selector("#compare-forest.js-plotly-plot svg.main-svg", timeout=15000)
    return page.evaluate(
        """() => {
          const plot = document.getElementById("compare-forest");
          return {
            rows: plot.data.map((t) => [t.name, t.y, t.text, t.marker.color]),
            words: Array.from(plot.querySelectorAll(".textpoint text"))
              .map((t) => t.textContent),
            bars: plot.querySelectorAll(".errorbar").length,
          };
        }"""
    )


def test_forest_plot_and_verdicts_lead_the_compare_page(
    page: Any, live_server: Any, owner: Any, log_in: Any, screenshot: Any
) -> None:
    posted("base", 0, 0)
    posted("regressed", 10, 10)
    posted("noisy", 1, 20)
    log_in("alice", "pw-alice")

    page.goto(f"{live_server.url}/evals/compare?base=base&candidate=regressed")
    drawn = forest(page)
    assert drawn["rows"] == [["regression", ["passRate"], ["regression"], "#c62828"]]
    assert drawn["words"] == ["regression"]
    assert drawn["bars"] == 1
    assert page.inner_text("#stat-table .verdict-word") == "regression"
    lead = page.locator("#stat-verdicts").bounding_box()
    gate = page.locator("#gate-heading").bounding_box()
    assert lead is not None and gate is not None and lead["y"] < gate["y"]
    screenshot("compare-stats-regression")

    page.goto(f"{live_server.url}/evals/compare?base=base&candidate=noisy")
    drawn = forest(page)
    assert drawn["rows"] == [
        ["inconclusive", ["passRate"], ["inconclusive"], "#8c959f"]
    ]
    assert page.inner_text("#stat-table .verdict-word") == "inconclusive"

    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(600)
    # A phone shows each row as a card: every figure is still there.
    row = "#stat-table tbody tr.stat-row"
    assert page.is_visible(f'{row} td[data-label="n × K"]')
    assert page.inner_text(f'{row} td[data-label="n × K"]') == "40 × 1"
    assert page.is_visible(f'{row} td[data-label="Change [95% interval]"]')
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
