"""The trends page: a metric over the runs of a benchmark, with its baseline.

Thin: reads from ``evals.selectors.trends``, figures from ``evals.charts``,
downloads built by ``evals.core.exports``. Works without JavaScript (the
table beside the charts paginates); ``format=json|csv`` downloads the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from core.errors import NotFound
from evals import charts, charts_usage
from evals.core.compare import PASS_RATE
from evals.core.exports import csv_export, json_export, trend_csv_rows, trend_to_json
from evals.selectors.benchmarks import benchmark_choices, benchmark_get
from evals.selectors.trends import Trend, TrendPoint, benchmark_trend
from evals.services.compare_usage import RunUsage, run_usage_to_json, runs_usage
from evals.services.stat_verdicts import TrendStats, trend_stats
from evals.views.compare_usage import millis, money
from evals.views.dashboard import (
    DIRECTION_TEXT,
    TREND_ROWS_PER_PAGE,
    number_text,
    query_url,
)
from evals.views.downloads import download
from evalsite.api import error_body


def _interval_text(stats: TrendStats, run_id: str) -> str:
    found = stats.intervals.get(run_id)
    estimate = stats.estimates.get(run_id)
    if found is None or estimate is None or estimate.interval.method == "none":
        return ""
    return f"[{number_text(found[0])}, {number_text(found[1])}]"


def _cost_text(usage: RunUsage | None) -> str:
    if usage is None or not usage.calls:
        return "no model calls"
    if usage.cost_usd is None:
        return f"unknown ({usage.unpriced_calls} unpriced)"
    return money(usage.cost_usd)


def _trend_rows(
    trend: Trend,
    points: Iterable[TrendPoint],
    stats: TrendStats,
    usage: dict[str, RunUsage],
) -> list[dict[str, Any]]:
    benchmark_id = trend.benchmark.benchmark_id
    return [
        {
            "point": point,
            "interval": _interval_text(stats, point.run_id),
            "step": stats.steps.get(point.run_id),
            "value": number_text(point.value),
            "pass_rate": number_text(point.pass_rate),
            "p50": number_text(point.metrics.get("latency_p50_ms")),
            "p95": number_text(point.metrics.get("latency_p95_ms")),
            "action_rate": number_text(point.metrics.get("action_rate")),
            "compulsion_proxy": number_text(point.metrics.get("compulsion_proxy")),
            "cost": _cost_text(usage.get(point.run_id)),
            "model_p95": millis(usage[point.run_id].latency_p95_ms)
            if point.run_id in usage and usage[point.run_id].calls
            else "no model calls",
            "compare_url": query_url(
                "evals:compare",
                [("base", point.previous_run_id), ("candidate", point.run_id)],
            )
            if point.previous_run_id
            else None,
            "benchmark_id": benchmark_id,
        }
        for point in points
    ]


# Columns of the runs table that only some benchmarks' runs fill (scenario
# suites: latency, action and compulsion; harness runs: a verdict).
OPTIONAL_COLUMNS = {
    "p50": lambda p: p.metrics.get("latency_p50_ms") is not None,
    "p95": lambda p: p.metrics.get("latency_p95_ms") is not None,
    "action_rate": lambda p: p.metrics.get("action_rate") is not None,
    "compulsion_proxy": lambda p: p.metrics.get("compulsion_proxy") is not None,
    "verdict": lambda p: p.verdict_passed is not None,
}


def _columns(trend: Trend) -> dict[str, bool]:
    """Which table columns to show: the chosen metric once (no separate
    passRate column when it is passRate), and an optional column only when
    some run of the trend has a value for it."""
    shown = {
        name: any(has(point) for point in trend.points)
        for name, has in OPTIONAL_COLUMNS.items()
    }
    shown["pass_rate"] = trend.metric != PASS_RATE
    return shown


def _unknown_metric(
    request: HttpRequest, context: dict[str, Any], trend: Trend
) -> HttpResponse:
    benchmark_id = trend.benchmark.benchmark_id
    known = ", ".join(trend.metric_names)
    message = (
        f"unknown metric {trend.metric!r} for {benchmark_id}: its runs have {known}"
    )
    if request.GET.get("format") in ("json", "csv"):
        return JsonResponse(
            error_body("invalid", message, {"?metric": [message]}), status=400
        )
    context.update(
        {"error": message, "metric_choices": trend.metric_names, "metric": PASS_RATE}
    )
    return render(request, "evals/trends.html", context, status=400)


@login_required
@require_GET
def trends(request: HttpRequest) -> HttpResponse:
    """``?benchmark=<id>&metric=<name>``: the metric over the benchmark's
    runs with its baseline, latency p50/p95, action_rate vs compulsion_proxy;
    a paginated table of the same; ``format=json|csv`` downloads it."""
    benchmark_id = request.GET.get("benchmark", "").strip()
    metric = request.GET.get("metric", "").strip() or PASS_RATE
    choices = benchmark_choices()
    context: dict[str, Any] = {
        "benchmark_choices": choices,
        "benchmark_id": benchmark_id,
        "metric": metric,
        "trend": None,
    }
    if not benchmark_id:
        return render(request, "evals/trends.html", context)
    try:
        benchmark = benchmark_get(benchmark_id=benchmark_id)
    except NotFound as error:
        context["error"] = error.message
        return render(request, "evals/trends.html", context, status=404)
    trend = benchmark_trend(benchmark=benchmark, metric=metric)
    if metric not in trend.metric_names:
        return _unknown_metric(request, context, trend)
    identity = [("benchmark", benchmark_id), ("metric", metric)]
    stem = f"trend-{benchmark_id}-{metric}"
    usage = runs_usage(p.run_id for p in trend.points)
    answer = download(
        request,
        {
            "json": lambda: json_export(
                {
                    **trend_to_json(trend),
                    # Each run's model calls: cost, tokens, model time.
                    "costAndLatency": {
                        run_id: run_usage_to_json(item)
                        for run_id, item in usage.items()
                    },
                },
                f"{stem}.json",
            ),
            "csv": lambda: csv_export(trend_csv_rows(trend), f"{stem}.csv"),
        },
    )
    if answer is not None:
        return answer
    newest_first = list(reversed(trend.points))
    page = Paginator(newest_first, TREND_ROWS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    baseline = trend.baseline
    stats = trend_stats(
        [(p.pk, p.run_id, p.passed_cases, p.total_cases) for p in trend.points]
    )
    banded = metric == PASS_RATE and bool(stats.intervals)
    metric_figure = charts.trend_figure(
        trend.points,
        metric=metric,
        baseline_value=trend.baseline_value,
        baseline_label=f"baseline {baseline.snapshot_id}" if baseline else "baseline",
        intervals=stats.intervals if banded else None,
    )
    context.update(
        {
            "trend": trend,
            "columns": {
                **_columns(trend),
                "usage": any(item.calls for item in usage.values()),
            },
            "metric_caption": (
                "Click a point to open that run; the dashed line is the "
                "baseline. The table below has the same numbers."
                if metric_figure is not None and trend.baseline_value is not None
                else "Click a point to open that run. The table below has the "
                "same numbers."
            )
            + (" The shaded band is each run's 95% interval." if banded else ""),
            "identity_query": urlencode(identity),
            "rows": _trend_rows(trend, page.object_list, stats, usage),
            "banded": banded,
            "stat_covered": stats.covered,
            "has_steps": bool(stats.steps),
            "page": page,
            "direction": DIRECTION_TEXT[trend.direction.value],
            "baseline_value": number_text(trend.baseline_value),
            "metric_figure": metric_figure,
            "latency_figure": charts.latency_figure(trend.points),
            "usage_figure": charts_usage.usage_trend_figure(trend.points, usage),
            "scatter_figure": charts.action_compulsion_figure(trend.points),
            "downloads": [
                ("JSON", query_url("evals:trends", [*identity, ("format", "json")])),
                ("CSV", query_url("evals:trends", [*identity, ("format", "csv")])),
            ],
        }
    )
    return render(request, "evals/trends.html", context)
