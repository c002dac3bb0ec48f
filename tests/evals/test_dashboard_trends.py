"""The trends page: a metric over the runs of a benchmark with its baseline,
latency and the action/compulsion scatter, the table fallback, downloads."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from evals.core.baselines import snapshot_from_runs
from evals.models import BaselineSnapshot, Benchmark, Run
from evals.selectors.trends import benchmark_trend
from evals.services.compare import run_summary_of

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def make_run(
    benchmark_id: str,
    run_id: str,
    *,
    minutes: int,
    passed: int = 10,
    total: int = 10,
    metrics: dict[str, float] | None = None,
    status: str = Run.Status.COMPLETED,
    finished: bool = True,
) -> Run:
    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id=benchmark_id,
        defaults={"kind": Benchmark.Kind.SUITE, "title": benchmark_id},
    )
    when = T0 + timedelta(minutes=minutes)
    return Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status=status,
        source=Run.Source.HARNESS,
        started_at=when,
        completed_at=when + timedelta(minutes=1) if finished else None,
        total_cases=total,
        passed_cases=passed,
        failed_cases=total - passed,
        metrics=metrics or {},
        verdict_passed=passed == total if finished else None,
    )


def harness_metrics(action: float, compulsion: float, p95: float) -> dict[str, float]:
    return {
        "action_rate": action,
        "compulsion_proxy": compulsion,
        "latency_p50_ms": p95 / 2,
        "latency_p95_ms": p95,
    }


@pytest.fixture
def three_runs() -> list[Run]:
    return [
        make_run("idle", "r1", minutes=0, metrics=harness_metrics(0.3, 0.0, 500)),
        make_run(
            "idle", "r2", minutes=10, passed=9, metrics=harness_metrics(0.45, 0.25, 600)
        ),
        make_run("idle", "r3", minutes=20, metrics=harness_metrics(0.2, 0.0, 400)),
    ]


def snapshot(snapshot_id: str, runs: list[Run], *, when: datetime = T0) -> None:
    document = snapshot_from_runs(
        [run_summary_of(run, None) for run in runs],
        snapshot_id=snapshot_id,
        created_at="2026-03-01T00:00:00Z",
        source_root_dir="evalsite database",
    )
    BaselineSnapshot.objects.create(
        snapshot_id=snapshot_id, created_at=when, document=document.to_wire()
    )


def test_trend_is_oldest_first_with_values_and_previous_runs(
    three_runs: list[Run],
) -> None:
    make_run("idle", "going", minutes=30, finished=False, status=Run.Status.RUNNING)
    benchmark = Benchmark.objects.get(benchmark_id="idle")

    trend = benchmark_trend(benchmark=benchmark, metric="compulsion_proxy")

    assert [p.run_id for p in trend.points] == ["r1", "r2", "r3"]
    assert [p.value for p in trend.points] == [0.0, 0.25, 0.0]
    assert [p.previous_run_id for p in trend.points] == [None, "r1", "r2"]
    assert trend.metric_names == (
        "passRate",
        "action_rate",
        "compulsion_proxy",
        "latency_p50_ms",
        "latency_p95_ms",
    )
    assert trend.direction == "lower_is_better"
    assert trend.baseline is None


def test_pass_rate_trend_and_the_limit(three_runs: list[Run]) -> None:
    benchmark = Benchmark.objects.get(benchmark_id="idle")

    trend = benchmark_trend(benchmark=benchmark, metric="passRate", limit=2)

    assert [(p.run_id, p.value) for p in trend.points] == [("r2", 0.9), ("r3", 1.0)]
    assert trend.direction == "higher_is_better"


def test_baseline_prefers_required_main_over_a_newer_snapshot(
    three_runs: list[Run],
) -> None:
    snapshot("required-main", [three_runs[0]])
    snapshot("nightly", [three_runs[1]], when=T0 + timedelta(days=1))
    benchmark = Benchmark.objects.get(benchmark_id="idle")

    trend = benchmark_trend(benchmark=benchmark, metric="action_rate")

    assert trend.baseline is not None
    assert trend.baseline.snapshot_id == "required-main"
    assert trend.baseline_value == 0.3


def test_page_draws_three_charts_from_server_built_figures(
    owner_client: Any, three_runs: list[Run]
) -> None:
    snapshot("required-main", [three_runs[0]])

    response = owner_client.get("/evals/trends?benchmark=idle&metric=compulsion_proxy")

    assert response.status_code == 200
    html = response.content.decode()
    metric = json.loads(
        html.split('id="trend-metric-data" type="application/json">')[1].split(
            "</script>"
        )[0]
    )
    assert metric["data"][0]["y"] == [0.0, 0.25, 0.0]
    assert metric["data"][0]["customdata"] == [
        "/evals/runs/r1/",
        "/evals/runs/r2/",
        "/evals/runs/r3/",
    ]
    assert metric["data"][1]["name"] == "baseline required-main"
    assert metric["data"][1]["y"] == [0.0, 0.0]
    assert 'id="trend-latency-data"' in html
    assert 'id="trend-scatter-data"' in html
    assert 'src="/static/evals/js/figures.js"' in html
    assert "<script>" not in html


def test_table_fallback_is_newest_first_with_compare_links(
    owner_client: Any, three_runs: list[Run]
) -> None:
    html = owner_client.get(
        "/evals/trends?benchmark=idle&metric=action_rate"
    ).content.decode()
    table = html.split('class="trend-table stack"')[1].split("</table>")[0]

    assert table.index("/evals/runs/r3/") < table.index("/evals/runs/r1/")
    assert '<a href="/evals/compare?base=r2&amp;candidate=r3">vs previous</a>' in table
    assert '<span class="bad">0.25</span>' in table
    assert '<span class="fail">FAIL</span>' in table


def test_table_paginates(owner_client: Any) -> None:
    for index in range(30):
        make_run("many", f"m{index:02d}", minutes=index)

    html = owner_client.get("/evals/trends?benchmark=many&page=2").content.decode()

    assert "Page 2 of 2 (30 runs)" in html
    assert 'href="?benchmark=many&amp;metric=passRate&amp;page=1#runs-heading"' in html
    assert "/evals/runs/m04/" in html
    assert "/evals/runs/m05/" not in html.split('class="trend-table stack"')[1]


def test_json_and_csv_downloads(owner_client: Any, three_runs: list[Run]) -> None:
    snapshot("required-main", [three_runs[0]])

    body = owner_client.get(
        "/evals/trends?benchmark=idle&metric=action_rate&format=json"
    ).json()
    rows = list(
        csv.reader(
            io.StringIO(
                owner_client.get(
                    "/evals/trends?benchmark=idle&metric=action_rate&format=csv"
                ).content.decode()
            )
        )
    )

    assert body["baseline"] == {
        "snapshotId": "required-main",
        "runId": "r1",
        "value": 0.3,
    }
    assert [r["value"] for r in body["runs"]] == [0.3, 0.45, 0.2]
    assert body["runs"][1]["url"] == "/evals/runs/r2/"
    assert rows[0] == [
        "run_id",
        "started_at",
        "completed_at",
        "status",
        "pass_rate",
        "value",
        "latency_p50_ms",
        "latency_p95_ms",
        "action_rate",
        "compulsion_proxy",
        "verdict_passed",
        "url",
    ]
    assert rows[2] == [
        "r2",
        "2026-03-01T12:10:00+00:00",
        "2026-03-01T12:11:00+00:00",
        "completed",
        "0.9",
        "0.45",
        "300.0",
        "600",
        "0.45",
        "0.25",
        "false",
        "/evals/runs/r2/",
    ]


def test_unknown_metric_is_400_naming_the_known_ones(
    owner_client: Any, three_runs: list[Run]
) -> None:
    page = owner_client.get("/evals/trends?benchmark=idle&metric=nope")
    download = owner_client.get("/evals/trends?benchmark=idle&metric=nope&format=json")

    message = (
        "unknown metric 'nope' for idle: its runs have passRate, action_rate, "
        "compulsion_proxy, latency_p50_ms, latency_p95_ms"
    )
    assert page.status_code == 400
    html = page.content.decode()
    assert f'<p class="error" role="alert">{escape(message)}</p>' in html
    assert "higher is better" not in html
    assert 'id="trend-metric-data"' not in html
    assert '<option value="compulsion_proxy">compulsion_proxy</option>' in html
    assert download.status_code == 400
    assert download.json()["error"]["fields"] == [
        {"path": "?metric", "message": message}
    ]


def test_pass_rate_trend_has_one_pass_rate_column(
    owner_client: Any, three_runs: list[Run]
) -> None:
    html = owner_client.get("/evals/trends?benchmark=idle").content.decode()
    head = html.split('class="trend-table stack"')[1].split("</thead>")[0]

    assert head.count(">passRate<") == 1
    assert "action_rate" in head


def test_pack_trend_leaves_out_the_scenario_only_columns(
    owner_client: Any,
) -> None:
    for index, passed in enumerate((10, 8)):
        run = make_run("pack", f"p{index}", minutes=index * 10, passed=passed)
        Run.objects.filter(pk=run.pk).update(verdict_passed=None)
    Benchmark.objects.filter(benchmark_id="pack").update(kind=Benchmark.Kind.PACK)

    html = owner_client.get("/evals/trends?benchmark=pack").content.decode()
    table = html.split('class="trend-table stack"')[1].split("</table>")[0]

    head = table.split("</thead>")[0]
    for column in ("p50 ms", "p95 ms", "action_rate", "compulsion_proxy", "Verdict"):
        assert column not in head
    assert "—" not in table


def test_caption_speaks_of_a_baseline_line_only_when_there_is_one(
    owner_client: Any, three_runs: list[Run]
) -> None:
    without = owner_client.get("/evals/trends?benchmark=idle").content.decode()
    snapshot("required-main", [three_runs[0]])
    with_line = owner_client.get("/evals/trends?benchmark=idle").content.decode()

    assert "dashed line" not in without
    assert "Click a point to open that run. The table below" in without
    assert "the dashed line is the baseline" in with_line


def test_runs_close_together_are_drawn_over_run_order(owner_client: Any) -> None:
    for index in range(3):
        run = make_run("quick", f"q{index}", minutes=0)
        Run.objects.filter(pk=run.pk).update(
            completed_at=T0 + timedelta(milliseconds=40 * index)
        )

    html = owner_client.get("/evals/trends?benchmark=quick").content.decode()
    figure = json.loads(
        html.split('id="trend-metric-data" type="application/json">')[1].split(
            "</script>"
        )[0]
    )

    assert figure["layout"]["xaxis"]["type"] == "linear"
    assert figure["layout"]["xaxis"]["dtick"] == 1
    assert figure["data"][0]["x"] == [1, 2, 3]
    assert figure["data"][0]["text"] == ["q0", "q1", "q2"]


def test_no_benchmark_shows_the_picker_and_unknown_is_404(
    owner_client: Any, three_runs: list[Run]
) -> None:
    picker = owner_client.get("/evals/trends")
    missing = owner_client.get("/evals/trends?benchmark=nope")

    assert picker.status_code == 200
    assert '<option value="idle">idle (suite)</option>' in picker.content.decode()
    assert missing.status_code == 404
    assert "no benchmark &#x27;nope&#x27;" in missing.content.decode()


def test_needs_login(client: Any) -> None:
    response = client.get("/evals/trends?benchmark=idle")

    assert response.status_code == 302


def test_query_count_does_not_depend_on_the_number_of_runs(
    owner_client: Any,
) -> None:
    def count(benchmark_id: str, runs: int) -> int:
        for index in range(runs):
            make_run(benchmark_id, f"{benchmark_id}-{index:03d}", minutes=index)
        url = f"/evals/trends?benchmark={benchmark_id}"
        owner_client.get(url)
        with CaptureQueriesContext(connection) as queries:
            owner_client.get(url)
        return len(queries)

    assert count("few", 3) == count("lots", 120)
