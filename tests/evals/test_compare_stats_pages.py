"""The trends page and the overview show the same paired verdict as the
compare page: trends with each run's pass-rate interval (a band on the
chart) and a verdict against the run before; the overview leads with each
benchmark's latest run against its baseline's run."""

from __future__ import annotations

from typing import Any

import pytest

from evals.models import Run
from evals.services.compare import comparison_for_runs
from tests.evals.compare_support import failing_first, posted_run, store_snapshot

pytestmark = pytest.mark.django_db


def posted(benchmark_id: str, run_id: str, failing: int, minutes: int) -> Run:
    return posted_run(benchmark_id, run_id, failing_first(failing), minutes=minutes)


def baseline(*runs: Run) -> None:
    store_snapshot("required-main", list(runs))


def test_trend_steps_are_the_compare_pages_verdicts(owner_client: Any) -> None:
    posted("pack", "r1", 0, 0)
    posted("pack", "r2", 10, 10)
    posted("pack", "r3", 11, 20)

    response = owner_client.get("/evals/trends?benchmark=pack")

    rows = {row["point"].run_id: row for row in response.context["rows"]}
    assert rows["r1"]["step"] is None
    assert rows["r2"]["step"].word == "regression"
    assert rows["r3"]["step"].word == "inconclusive"
    for base, candidate in (("r1", "r2"), ("r2", "r3")):
        stat = comparison_for_runs(base_run_id=base, candidate_run_id=candidate).stat
        assert stat is not None
        word = stat.benchmarks[0].comparisons[0].verdict.value
        assert rows[candidate]["step"].word == word
    assert "Pass rate vs previous run" in response.content.decode()


def test_pass_rate_trend_draws_an_interval_band_within_zero_and_one(
    owner_client: Any,
) -> None:
    posted("pack", "r1", 0, 0)
    posted("pack", "r2", 2, 10)

    response = owner_client.get("/evals/trends?benchmark=pack")

    traces = response.context["metric_figure"]["data"]
    band = [t for t in traces if t.get("fill") == "tonexty"]
    assert len(band) == 1
    low_edge = traces[traces.index(band[0]) - 1]
    assert all(0 <= y <= 1 for y in low_edge["y"] + band[0]["y"])
    assert low_edge["y"][1] < 38 / 40 < band[0]["y"][1]
    assert "95% interval" in response.content.decode()


def test_other_metrics_have_no_band(owner_client: Any) -> None:
    run = posted("pack", "r1", 0, 0)
    Run.objects.filter(pk=run.pk).update(metrics={"score": 0.5})
    posted("pack", "r2", 0, 10)

    response = owner_client.get("/evals/trends?benchmark=pack&metric=score")

    traces = response.context["metric_figure"]["data"]
    assert not any(t.get("fill") for t in traces)


def test_overview_leads_with_verdicts_against_baselines(owner_client: Any) -> None:
    significant = posted("calendar", "cal-1", 0, 0)
    posted("calendar", "cal-2", 10, 10)
    small = posted("memory", "mem-1", 0, 0)
    posted("memory", "mem-2", 1, 10)
    baseline(significant, small)

    html = owner_client.get("/").content.decode()

    table = html.split('id="baseline-verdicts"')[1].split("</table>")[0]
    rows = {
        row.split("</a>")[0].rsplit(">", 1)[1]: row
        for row in table.split('<tr class="stat-row">')[1:]
    }
    assert "verdict-regression" in rows["calendar"]
    assert "verdict-inconclusive" in rows["memory"]
    assert "40 × 1" in rows["calendar"]
    assert "base=cal-1&amp;candidate=cal-2" in rows["calendar"]
    assert html.index('id="verdicts-heading"') < html.index("latest-heading")
