"""The evals sections of the overview page (``evalsite.overview``): the open
regressions and invalid uploads tiles, then, leading the body, each
benchmark's latest run against its baseline as a paired verdict with its
interval, the regressions in the plain gate's words and the latest run of
each benchmark, filtered by kind and name."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest
from django.utils.http import urlencode

from evals.selectors.benchmarks import (
    benchmark_kinds,
    invalid_uploads_pending,
    latest_runs,
)
from evals.selectors.runs import runs_in_pks
from evals.services.standings import baseline_standings
from evals.services.stat_verdicts import baseline_verdicts

BENCHMARKS_PER_PAGE = 12
REGRESSIONS_PER_PAGE = 10
PENDING_UPLOADS_SHOWN = 3


def overview_context(request: HttpRequest) -> dict[str, Any]:
    """What ``evals/overview/tiles.html`` and ``body.html`` read."""
    kind = request.GET.get("kind", "")
    if kind not in {value for value, _ in benchmark_kinds()}:
        kind = ""
    search = request.GET.get("q", "").strip()
    benchmarks = latest_runs(kind=kind or None, search=search or None)
    page = Paginator(benchmarks, BENCHMARKS_PER_PAGE).get_page(request.GET.get("page"))
    latest = runs_in_pks(b.latest_run_pk for b in page.object_list)
    standings = baseline_standings()
    regressed = [standings[b] for b in sorted(standings) if standings[b].regressed]
    regression_page = Paginator(regressed, REGRESSIONS_PER_PAGE).get_page(
        request.GET.get("rpage")
    )
    pending_count, pending = invalid_uploads_pending(PENDING_UPLOADS_SHOWN)
    if not request.user.is_staff:
        # Upload file names are chosen by whoever uploaded; only staff, who
        # review them, see them.
        pending = []
    filters = [(key, value) for key, value in (("kind", kind), ("q", search)) if value]
    cards: list[dict[str, Any]] = [
        {
            "benchmark": benchmark,
            "run": latest.get(benchmark.latest_run_pk),
            "standing": standings.get(benchmark.benchmark_id),
        }
        for benchmark in page.object_list
    ]
    verdicts = baseline_verdicts()
    return {
        "baseline_verdicts": verdicts,
        "verdict_regressions": sum(v.text.word == "regression" for v in verdicts),
        "cards": cards,
        "page": page,
        "kind": kind,
        "kinds": benchmark_kinds(),
        "search": search,
        "filter_query": urlencode(filters),
        "regression_page": regression_page,
        "regressed_count": len(regressed),
        "baselined_count": len(standings),
        "pending_count": pending_count,
        "pending": pending,
    }
