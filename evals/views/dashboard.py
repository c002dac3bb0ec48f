"""The dashboard pages: compare two runs (or a snapshot with the latest runs),
one case side by side, and trends over the runs of a benchmark.

Thin: comparisons come from ``evals.services.compare`` and reads from
``evals.selectors``; figures from ``evals.charts``. Every page works without
JavaScript (filters are GET forms, tables paginate, charts have a table
next to them) and has a stable URL made only of its query string; the same
data downloads as JSON and CSV from the same URL with ``format=``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from core.errors import NotFound
from evals import charts
from evals.core.compare import (
    CHANGE_LABELS,
    PASS_RATE,
    CaseChange,
    CaseDiff,
    CaseFilter,
    CaseSide,
    MetricRow,
    filter_cases,
    filter_options,
)
from evals.core.gate import format_number, verdict_to_json, verdict_to_markdown
from evals.selectors.baselines import snapshot_ids
from evals.selectors.benchmarks import benchmark_choices, benchmark_get
from evals.selectors.runs import recent_run_ids
from evals.selectors.trends import Trend, TrendPoint, benchmark_trend
from evals.services.compare import (
    CasePair,
    Comparison,
    ComparisonRefused,
    case_pair_get,
    comparison_for_runs,
    comparison_for_snapshot,
)

CASES_PER_PAGE = 50
TREND_ROWS_PER_PAGE = 25
FORMATS = ("json", "csv", "metrics.csv", "md")

OUTCOME_CLASSES = {
    "regression": "bad",
    "improvement": "good",
    "only_base": "muted",
    "only_candidate": "muted",
}
DIRECTION_TEXT = {
    "higher_is_better": "higher is better",
    "lower_is_better": "lower is better",
    "neutral": "neutral (never judged)",
}


def _url(name: str, pairs: Iterable[tuple[str, str]]) -> str:
    query = urlencode([(key, value) for key, value in pairs if value])
    return f"{reverse(name)}?{query}" if query else reverse(name)


def _number(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "—"
    text = format_number(value)
    return f"+{text}" if signed and value > 0 and text != "0" else text


def _csv_response(rows: Sequence[Sequence[str]], filename: str) -> HttpResponse:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _json_response(document: Any, filename: str) -> JsonResponse:
    response = JsonResponse(document, json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


# --- compare ------------------------------------------------------------------


def _case_filter(request: HttpRequest) -> CaseFilter:
    get = request.GET
    only = get.get("only", "")
    change = get.get("change", "")
    return CaseFilter(
        only=only if only in ("regressions", "changed") else "",
        change=change if change in CaseChange.__members__.values() else "",
        benchmark=get.get("benchmark", "").strip(),
        stimulus_kind=get.get("kind", "").strip(),
        affordance=get.get("affordance", "").strip(),
        tag=get.get("tag", "").strip(),
    )


def _metric_view(row: MetricRow) -> dict[str, Any]:
    return {
        "name": row.name,
        "base": _number(row.base),
        "candidate": _number(row.candidate),
        "delta": _number(row.delta, signed=True),
        "direction": DIRECTION_TEXT[row.direction.value],
        "outcome": row.outcome.replace("_", " "),
        "css": OUTCOME_CLASSES.get(row.outcome, ""),
    }


def _rate_rows(comparison: Comparison) -> list[tuple[str, float | None, float | None]]:
    if len(comparison.sections) == 1:
        return [
            (row.name, row.base, row.candidate)
            for row in comparison.sections[0].metrics
            if row.name == PASS_RATE
            or charts.is_rate_metric(row.name, row.base, row.candidate)
        ]
    return [
        (section.benchmark_id, section.metrics[0].base, section.metrics[0].candidate)
        for section in comparison.sections
    ]


def _pair_ids(comparison: Comparison) -> dict[str, tuple[str, str]]:
    return {
        s.benchmark_id: (s.base_run_id, s.candidate_run_id)
        for s in comparison.sections
        if s.base_run_id and s.candidate_run_id
    }


def _case_url(case: CaseDiff, pairs: dict[str, tuple[str, str]]) -> str | None:
    ids = pairs.get(case.benchmark_id)
    if ids is None:
        return None
    return _url(
        "evals:compare-case",
        [("base", ids[0]), ("candidate", ids[1]), ("case", case.case_id)],
    )


def _compare_picker(
    request: HttpRequest, *, error: str = "", status: int = 200
) -> HttpResponse:
    return render(
        request,
        "evals/compare.html",
        {
            "comparison": None,
            "error": error,
            "base": request.GET.get("base", ""),
            "candidate": request.GET.get("candidate", ""),
            "snapshot": request.GET.get("snapshot", ""),
            "recent_run_ids": recent_run_ids(),
            "snapshot_ids": snapshot_ids(),
        },
        status=status,
    )


@login_required
@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    """``?base=<run>&candidate=<run>`` or ``?snapshot=<id>``: metrics side by
    side, the gate's verdict and lines, the cases that changed (filtered,
    paginated); ``format=json|csv|metrics.csv|md`` downloads the same."""
    base = request.GET.get("base", "").strip()
    candidate = request.GET.get("candidate", "").strip()
    snapshot = request.GET.get("snapshot", "").strip()
    if not snapshot and not (base and candidate):
        if base or candidate:
            return _compare_picker(
                request, error="Give both a base and a candidate run.", status=400
            )
        return _compare_picker(request)
    try:
        if snapshot:
            comparison = comparison_for_snapshot(snapshot_id=snapshot)
            identity = [("snapshot", snapshot)]
        else:
            comparison = comparison_for_runs(
                base_run_id=base, candidate_run_id=candidate
            )
            identity = [("base", base), ("candidate", candidate)]
    except NotFound as error:
        return _compare_picker(request, error=error.message, status=404)
    except ComparisonRefused as error:
        return _compare_picker(request, error=error.message, status=400)

    wanted = _case_filter(request)
    cases = filter_cases(comparison.cases, wanted)
    stem = "compare-" + "-".join(value for _, value in identity)
    fmt = request.GET.get("format", "")
    if fmt == "json":
        return _json_response(
            comparison_to_json(comparison, cases=cases, wanted=wanted), f"{stem}.json"
        )
    if fmt == "csv":
        return _csv_response(case_csv_rows(cases), f"{stem}-cases.csv")
    if fmt == "metrics.csv":
        return _csv_response(metric_csv_rows(comparison), f"{stem}-metrics.csv")
    if fmt == "md":
        response = HttpResponse(
            verdict_to_markdown(comparison.verdict),
            content_type="text/markdown; charset=utf-8",
        )
        response["Content-Disposition"] = f'inline; filename="{stem}.md"'
        return response

    filters = wanted.to_query()
    page = Paginator(cases, CASES_PER_PAGE).get_page(request.GET.get("page"))
    pairs = _pair_ids(comparison)
    counts = comparison.change_counts
    change_links = [
        (
            change.value,
            CHANGE_LABELS[change],
            counts[change],
            _url("evals:compare", [*identity, ("change", change.value)]),
        )
        for change in CaseChange
    ]
    if len(comparison.sections) == 1:
        section = comparison.sections[0]
        base_label = f"base {section.base_run_id}"
        candidate_label = f"candidate {section.candidate_run_id or '—'}"
    else:
        base_label = f"baseline {comparison.snapshot_id}"
        candidate_label = "latest completed runs"
    flipped = [
        (case, _case_url(case, pairs))
        for case in comparison.cases
        if case.change in (CaseChange.PASS_TO_FAIL, CaseChange.FAIL_TO_PASS)
    ]
    return render(
        request,
        "evals/compare.html",
        {
            "comparison": comparison,
            "verdict": comparison.verdict,
            "markdown": verdict_to_markdown(comparison.verdict),
            "sections": [
                (section, [_metric_view(row) for row in section.metrics])
                for section in comparison.sections
            ],
            "base_label": base_label,
            "candidate_label": candidate_label,
            "identity_query": urlencode(identity),
            "identity": identity,
            "filter_query": urlencode(filters),
            "page_query": urlencode([*identity, *filters]),
            "wanted": wanted,
            "options": filter_options(comparison.cases),
            "page": page,
            "rows": [(case, _case_url(case, pairs)) for case in page.object_list],
            "matching": len(cases),
            "change_links": change_links,
            "flipped": flipped[:20],
            "flipped_total": len(flipped),
            "rates_figure": charts.compare_rates_figure(
                _rate_rows(comparison),
                base_label=base_label,
                candidate_label=candidate_label,
            ),
            "changes_figure": charts.case_changes_figure(change_links)
            if comparison.cases
            else None,
            "downloads": [
                (label, _url("evals:compare", [*identity, *filters, ("format", fmt)]))
                for label, fmt in (
                    ("JSON", "json"),
                    ("cases CSV", "csv"),
                    ("metrics CSV", "metrics.csv"),
                    ("gate report (markdown)", "md"),
                )
            ],
        },
    )


# --- one case side by side ------------------------------------------------------


def _goal(details: dict[str, Any]) -> str:
    goal = details.get("extractedGoal")
    if goal:
        parts = [goal.get("action"), goal.get("target"), goal.get("amount")]
        return " ".join(str(p) for p in parts if p not in (None, ""))
    reason = details.get("goalFailReason")
    return f"none ({reason})" if reason else "none"


def _grounding(details: dict[str, Any]) -> str:
    grounding = details.get("grounding") or {}
    verdict = grounding.get("pass")
    head = "—" if verdict is None else ("pass" if verdict else "fail")
    extra = [str(v) for v in (grounding.get("category"), grounding.get("reason")) if v]
    return f"{head} · {' · '.join(extra)}" if extra else head


def _result(case: Any) -> str:
    reasons = case.details.get("failReasons") or []
    if case.passed:
        return "pass"
    return f"fail ({', '.join(reasons)})" if reasons else "fail"


def _fields(case: Any) -> list[tuple[str, str, bool]]:
    """``(label, text, preformatted)`` of one side; ``—`` where absent."""
    if case is None:
        return []
    details = case.details or {}
    latency = case.latency_ms
    rows: list[tuple[str, str, bool]] = [
        ("Result", _result(case), False),
        ("Latency", "—" if latency is None else f"{format_number(latency)} ms", False),
        (
            "Stimulus",
            " · ".join(v for v in (case.stimulus_kind, case.affordance) if v) or "—",
            False,
        ),
        ("Tags", ", ".join(case.tags) or "—", False),
    ]
    if "scenario" not in details:
        rows.append(("Error", case.error or "—", False))
        rows.append(("Details", _pretty(details), True))
        return rows
    model = details.get("model") or {}
    rows += [
        ("Goal", _goal(details), False),
        ("Grounding", _grounding(details), False),
        (
            "convertEligible",
            f"{'true' if details.get('convertEligible') else 'false'} · "
            f"{details.get('convertEligibleReason') or '—'}",
            False,
        ),
        ("Error", case.error or details.get("error") or "—", False),
        ("Output (thought)", details.get("thought") or "—", True),
        ("Model output (raw)", details.get("rawOutput") or "—", True),
        ("Rendered frame", (details.get("frame") or {}).get("text") or "—", True),
        (
            "Model",
            f"{model.get('id', '—')} · sampler {model.get('sampler', '—')} · "
            f"seed {model.get('seed', '—')}",
            False,
        ),
        (
            "Scenario",
            f"version {details['scenario'].get('version', '—')} · sha256 "
            f"{str(details['scenario'].get('sha256', '—'))[:12]}",
            False,
        ),
    ]
    return rows


def _pretty(details: Any) -> str:
    return json.dumps(details, indent=2, sort_keys=True, ensure_ascii=False)


def _side_by_side(pair: CasePair) -> list[dict[str, Any]]:
    left = dict((label, (text, pre)) for label, text, pre in _fields(pair.base))
    right = dict((label, (text, pre)) for label, text, pre in _fields(pair.candidate))
    labels = list(left) + [label for label in right if label not in left]
    out = []
    for label in labels:
        base_text, base_pre = left.get(label, ("—", False))
        cand_text, cand_pre = right.get(label, ("—", False))
        out.append(
            {
                "label": label,
                "base": base_text,
                "candidate": cand_text,
                "pre": base_pre or cand_pre,
                "differs": base_text != cand_text,
            }
        )
    return out


@login_required
@require_GET
def compare_case(request: HttpRequest) -> HttpResponse:
    """``?base=<run>&candidate=<run>&case=<id>``: both scenario artifacts
    side by side, differing fields marked."""
    base = request.GET.get("base", "").strip()
    candidate = request.GET.get("candidate", "").strip()
    case_id = request.GET.get("case", "").strip()
    if not (base and candidate and case_id):
        return render(
            request,
            "evals/compare.html",
            {
                "case_page": True,
                "error": "Give a base run, a candidate run and a case.",
            },
            status=400,
        )
    try:
        pair = case_pair_get(
            base_run_id=base, candidate_run_id=candidate, case_id=case_id
        )
    except NotFound as error:
        return render(
            request,
            "evals/compare.html",
            {"case_page": True, "error": error.message},
            status=404,
        )
    change = pair.change
    return render(
        request,
        "evals/compare.html",
        {
            "case_page": True,
            "pair": pair,
            "change": change,
            "change_label": CHANGE_LABELS[change] if change else "",
            "rows": _side_by_side(pair),
            "compare_url": _url(
                "evals:compare", [("base", base), ("candidate", candidate)]
            ),
        },
    )


# --- trends -----------------------------------------------------------------------


def _trend_rows(trend: Trend, points: Iterable[TrendPoint]) -> list[dict[str, Any]]:
    benchmark_id = trend.benchmark.benchmark_id
    return [
        {
            "point": point,
            "value": _number(point.value),
            "pass_rate": _number(point.pass_rate),
            "p50": _number(point.metrics.get("latency_p50_ms")),
            "p95": _number(point.metrics.get("latency_p95_ms")),
            "action_rate": _number(point.metrics.get("action_rate")),
            "compulsion_proxy": _number(point.metrics.get("compulsion_proxy")),
            "compare_url": _url(
                "evals:compare",
                [("base", point.previous_run_id), ("candidate", point.run_id)],
            )
            if point.previous_run_id
            else None,
            "benchmark_id": benchmark_id,
        }
        for point in points
    ]


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
    identity = [("benchmark", benchmark_id), ("metric", metric)]
    stem = f"trend-{benchmark_id}-{metric}"
    fmt = request.GET.get("format", "")
    if fmt == "json":
        return _json_response(trend_to_json(trend), f"{stem}.json")
    if fmt == "csv":
        return _csv_response(trend_csv_rows(trend), f"{stem}.csv")
    newest_first = list(reversed(trend.points))
    page = Paginator(newest_first, TREND_ROWS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    baseline = trend.baseline
    context.update(
        {
            "trend": trend,
            "identity_query": urlencode(identity),
            "rows": _trend_rows(trend, page.object_list),
            "page": page,
            "direction": DIRECTION_TEXT[trend.direction.value],
            "baseline_value": _number(trend.baseline_value),
            "metric_figure": charts.trend_figure(
                trend.points,
                metric=metric,
                baseline_value=trend.baseline_value,
                baseline_label=f"baseline {baseline.snapshot_id}"
                if baseline
                else "baseline",
            ),
            "latency_figure": charts.latency_figure(trend.points),
            "scatter_figure": charts.action_compulsion_figure(trend.points),
            "downloads": [
                ("JSON", _url("evals:trends", [*identity, ("format", "json")])),
                ("CSV", _url("evals:trends", [*identity, ("format", "csv")])),
            ],
        }
    )
    return render(request, "evals/trends.html", context)


# --- downloads -----------------------------------------------------------------
def _side_json(side: CaseSide | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {
        "runId": side.run_id,
        "passed": side.passed,
        "latencyMs": side.latency_ms,
        "error": side.error or None,
    }


def case_to_json(case: CaseDiff) -> dict[str, Any]:
    return {
        "benchmarkId": case.benchmark_id,
        "caseId": case.case_id,
        "change": case.change.value,
        "base": _side_json(case.base),
        "candidate": _side_json(case.candidate),
        "latencyDeltaMs": case.latency_delta_ms,
        "stimulusKind": case.stimulus_kind or None,
        "affordance": case.affordance or None,
        "tags": list(case.tags),
    }


def comparison_to_json(
    comparison: Comparison, *, cases: Sequence[CaseDiff], wanted: CaseFilter
) -> dict[str, Any]:
    """The compare page as JSON: the gate's own report under ``gate``, the
    metrics side by side, change counts, and ``cases`` after the filters."""
    return {
        "mode": comparison.mode,
        "snapshotId": comparison.snapshot_id,
        "gate": verdict_to_json(comparison.verdict),
        "notes": list(comparison.notes),
        "benchmarks": [
            {
                "benchmarkId": section.benchmark_id,
                "baseRunId": section.base_run_id,
                "candidateRunId": section.candidate_run_id,
                "metrics": [
                    {
                        "name": row.name,
                        "base": row.base,
                        "candidate": row.candidate,
                        "delta": row.delta,
                        "direction": row.direction.value,
                        "outcome": row.outcome,
                    }
                    for row in section.metrics
                ],
            }
            for section in comparison.sections
        ],
        "caseCounts": {
            change.value: count for change, count in comparison.change_counts.items()
        },
        "filters": dict(wanted.to_query()),
        "cases": [case_to_json(case) for case in cases],
    }


CASE_CSV_HEADER = (
    "benchmark_id",
    "case_id",
    "change",
    "base_run_id",
    "base_passed",
    "base_latency_ms",
    "candidate_run_id",
    "candidate_passed",
    "candidate_latency_ms",
    "latency_delta_ms",
    "stimulus_kind",
    "affordance",
    "tags",
)
METRIC_CSV_HEADER = (
    "benchmark_id",
    "metric",
    "base",
    "candidate",
    "delta",
    "direction",
    "outcome",
)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def case_csv_rows(cases: Iterable[CaseDiff]) -> list[list[str]]:
    """The case table as CSV rows (header first); tags joined with ``;``."""
    out = [list(CASE_CSV_HEADER)]
    for case in cases:
        base, cand = case.base, case.candidate
        out.append(
            [
                _cell(v)
                for v in (
                    case.benchmark_id,
                    case.case_id,
                    case.change.value,
                    base.run_id if base else None,
                    base.passed if base else None,
                    base.latency_ms if base else None,
                    cand.run_id if cand else None,
                    cand.passed if cand else None,
                    cand.latency_ms if cand else None,
                    case.latency_delta_ms,
                    case.stimulus_kind,
                    case.affordance,
                    ";".join(case.tags),
                )
            ]
        )
    return out


def metric_csv_rows(comparison: Comparison) -> list[list[str]]:
    out = [list(METRIC_CSV_HEADER)]
    for section in comparison.sections:
        for row in section.metrics:
            out.append(
                [
                    _cell(v)
                    for v in (
                        section.benchmark_id,
                        row.name,
                        row.base,
                        row.candidate,
                        row.delta,
                        row.direction.value,
                        row.outcome,
                    )
                ]
            )
    return out


TREND_CSV_HEADER = (
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
)


def trend_to_json(trend: Trend) -> dict[str, Any]:
    """The trend page as JSON: every plotted run, oldest first, with the
    baseline the reference line comes from."""
    baseline = trend.baseline
    return {
        "benchmarkId": trend.benchmark.benchmark_id,
        "metric": trend.metric,
        "direction": trend.direction.value,
        "baseline": None
        if baseline is None
        else {
            "snapshotId": baseline.snapshot_id,
            "runId": baseline.entry.run_id,
            "value": trend.baseline_value,
        },
        "metricNames": list(trend.metric_names),
        "runs": [
            {
                "runId": p.run_id,
                "startedAt": p.started_at.isoformat(),
                "completedAt": p.completed_at.isoformat() if p.completed_at else None,
                "status": p.status,
                "passRate": p.pass_rate,
                "value": p.value,
                "latencyP50Ms": p.metrics.get("latency_p50_ms"),
                "latencyP95Ms": p.metrics.get("latency_p95_ms"),
                "actionRate": p.metrics.get("action_rate"),
                "compulsionProxy": p.metrics.get("compulsion_proxy"),
                "verdictPassed": p.verdict_passed,
                "url": p.url,
            }
            for p in trend.points
        ],
    }


def trend_csv_rows(trend: Trend) -> list[list[str]]:
    out = [list(TREND_CSV_HEADER)]
    for p in trend.points:
        out.append(
            [
                _cell(v)
                for v in (
                    p.run_id,
                    p.started_at.isoformat(),
                    p.completed_at.isoformat() if p.completed_at else None,
                    p.status,
                    p.pass_rate,
                    p.value,
                    p.metrics.get("latency_p50_ms"),
                    p.metrics.get("latency_p95_ms"),
                    p.metrics.get("action_rate"),
                    p.metrics.get("compulsion_proxy"),
                    p.verdict_passed,
                    p.url,
                )
            ]
        )
    return out
