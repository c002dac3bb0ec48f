"""The compare pages: two runs (or a snapshot with the latest runs) side by
side, and one case of both runs side by side.

Thin: comparisons come from ``evals.services.compare`` and reads from
``evals.selectors``; figures from ``evals.charts``. Every page works without
JavaScript (filters are GET forms, tables paginate, charts have a table
next to them) and has a stable URL made only of its query string; the same
data downloads as JSON and CSV from the same URL with ``format=``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from core.errors import NotFound
from evals import charts
from evals.core.case_sides import CaseSide, case_fields, side_by_side
from evals.core.compare import (
    CHANGE_LABELS,
    PASS_RATE,
    CaseChange,
    CaseDiff,
    CaseFilter,
    CursorError,
    FilterOptions,
    MetricRow,
    cursor_from_text,
)
from evals.core.exports import (
    case_csv_iter,
    csv_export,
    metric_csv_rows,
    verdict_markdown_export,
)
from evals.core.gate_report import verdict_to_markdown
from evals.core.scenario_artifact import ScenarioArtifact, is_scenario_artifact
from evals.models import CaseResult
from evals.selectors.baselines import snapshot_ids
from evals.selectors.compare_cases import (
    case_diffs_iter,
    case_diffs_page,
    change_counts,
)
from evals.selectors.runs import recent_run_ids
from evals.services.compare import Comparison, ComparisonRefused, comparison_for_runs
from evals.services.compare_case import case_pair_get
from evals.services.compare_snapshots import comparison_for_snapshot
from evals.services.compare_usage import comparison_usage
from evals.services.runs.recording import METRIC_INPUTS_KEY
from evals.views.compare_json import json_answer, next_page_url
from evals.views.compare_stats import stat_context
from evals.views.compare_usage import usage_context
from evals.views.dashboard import (
    CASES_PER_PAGE,
    DIRECTION_TEXT,
    OUTCOME_CLASSES,
    number_text,
    query_url,
)
from evals.views.downloads import download, streamed_csv
from evalsite.api import error_body

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


@dataclass(frozen=True, slots=True)
class MetricView:
    """One metric row of the compare table, as the page writes it."""

    name: str
    base: str
    candidate: str
    delta: str
    direction: str
    outcome: str
    css: str


def _metric_view(row: MetricRow) -> MetricView:
    return MetricView(
        name=row.name,
        base=number_text(row.base),
        candidate=number_text(row.candidate),
        delta=number_text(row.delta, signed=True),
        direction=DIRECTION_TEXT[row.direction.value],
        outcome=row.outcome.replace("_", " "),
        css=OUTCOME_CLASSES.get(row.outcome, ""),
    )


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
    return query_url(
        "evals:compare-case",
        [("base", ids[0]), ("candidate", ids[1]), ("case", case.case_id)],
    )


def _flips_of(comparison: Comparison) -> list[CaseDiff]:
    """The flipped cases as the gate listed them (no query): to fail first,
    then to pass; by benchmark, then case id, as the case table orders them."""
    deltas = sorted(comparison.verdict.deltas, key=lambda d: d.benchmark_id)
    return [
        CaseDiff(delta.benchmark_id, case_id, change, None, None, "", "", ())
        for change, attribute in (
            (CaseChange.PASS_TO_FAIL, "cases_flipped_to_fail"),
            (CaseChange.FAIL_TO_PASS, "cases_flipped_to_pass"),
        )
        for delta in deltas
        for case_id in getattr(delta, attribute)
    ]


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
        # The candidate is the run that does not belong with the base.
        message = f"candidate: {error.message}"
        if request.GET.get("format"):
            return JsonResponse(
                error_body(error.code, message, {"?candidate": [error.message]}),
                status=400,
            )
        return _compare_picker(request, error=message, status=400)

    wanted = _case_filter(request)
    try:
        after = (
            cursor_from_text(request.GET["after"]) if request.GET.get("after") else None
        )
    except CursorError as error:
        if request.GET.get("format"):
            return JsonResponse(
                error_body("invalid_request", str(error), {"?after": [str(error)]}),
                status=400,
            )
        return _compare_picker(request, error=str(error), status=400)
    stem = "compare-" + "-".join(value for _, value in identity)
    filters = wanted.to_query()
    pairs_of = comparison.pairs
    total = comparison.case_total
    matching = sum(change_counts(pairs_of, wanted).values()) if filters else total
    answer = download(
        request,
        {
            "json": lambda: json_answer(
                comparison, wanted, after, identity, matching, f"{stem}.json"
            ),
            "csv": lambda: streamed_csv(
                case_csv_iter(case_diffs_iter(pairs_of, wanted)), f"{stem}-cases.csv"
            ),
            "metrics.csv": lambda: csv_export(
                metric_csv_rows(comparison), f"{stem}-metrics.csv"
            ),
            "md": lambda: verdict_markdown_export(comparison.verdict, f"{stem}.md"),
        },
    )
    if answer is not None:
        return answer

    usage = comparison_usage(comparison)
    page_cases, next_cursor = case_diffs_page(
        pairs_of, wanted, after=after, limit=CASES_PER_PAGE
    )
    pairs = _pair_ids(comparison)
    counts = comparison.change_counts
    change_links = [
        (
            change.value,
            CHANGE_LABELS[change],
            counts[change],
            query_url("evals:compare", [*identity, ("change", change.value)]),
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
    flipped_total = counts[CaseChange.PASS_TO_FAIL] + counts[CaseChange.FAIL_TO_PASS]
    flipped = _flips_of(comparison)[:20]
    found = comparison.options
    options = FilterOptions(
        tuple(sorted({pair.benchmark_id for pair in pairs_of})),
        found.stimulus_kinds,
        found.affordances,
        found.tags,
    )
    return render(
        request,
        "evals/compare.html",
        {
            **stat_context(request, comparison, identity=identity, pairs=pairs),
            **usage_context(usage),
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
            "wanted": wanted,
            "options": options,
            # Columns and filters no case has a value for (packs and gridworld
            # episodes have no stimulus) are left out rather than all "—".
            "show_stimulus": bool(options.stimulus_kinds or wanted.stimulus_kind),
            "show_affordance": bool(options.affordances or wanted.affordance),
            "show_tags": bool(options.tags or wanted.tag),
            "rows": [(case, _case_url(case, pairs)) for case in page_cases],
            "later_page": after is not None,
            "first_page_url": f"?{urlencode([*identity, *filters])}#cases-heading",
            "next_page_url": next_page_url(identity, filters, next_cursor),
            "matching": matching,
            "case_total": total,
            "change_links": change_links,
            "flipped": [(case, _case_url(case, pairs)) for case in flipped],
            "flipped_total": flipped_total,
            # A review queue of the flips (the reviews app's new-queue page
            # takes the pair as ``from_compare``; staff make queues).
            "review_flips_query": urlencode(
                [("from_compare", f"{base}...{candidate}"), ("cases", "flips")]
            )
            if not snapshot and request.user.is_staff
            else "",
            "rates_figure": charts.compare_rates_figure(
                _rate_rows(comparison),
                base_label=base_label,
                candidate_label=candidate_label,
            ),
            "changes_figure": charts.case_changes_figure(change_links)
            if total
            else None,
            "downloads": [
                (
                    label,
                    query_url("evals:compare", [*identity, *filters, ("format", fmt)]),
                )
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


def _side(case: CaseResult | None) -> CaseSide | None:
    """What the drill-down shows of a stored case (None: not in that run)."""
    if case is None:
        return None
    details = case.details or {}
    return CaseSide(
        passed=case.passed,
        latency_ms=case.latency_ms,
        stimulus_kind=case.stimulus_kind,
        affordance=case.affordance,
        tags=tuple(case.tags),
        error=case.error,
        artifact=ScenarioArtifact.from_wire(details)
        if is_scenario_artifact(details)
        else None,
        details=details,
    )


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
    base_side, candidate_side = _side(pair.base), _side(pair.candidate)
    return render(
        request,
        "evals/compare.html",
        {
            "case_page": True,
            "pair": pair,
            "base_has_artifact": bool(base_side and base_side.artifact),
            "candidate_has_artifact": bool(candidate_side and candidate_side.artifact),
            "change": change,
            "change_label": CHANGE_LABELS[change] if change else "",
            "rows": side_by_side(
                case_fields(base_side, hidden=METRIC_INPUTS_KEY),
                case_fields(candidate_side, hidden=METRIC_INPUTS_KEY),
            ),
            "compare_url": query_url(
                "evals:compare", [("base", base), ("candidate", candidate)]
            ),
        },
    )


# --- trends -----------------------------------------------------------------------
