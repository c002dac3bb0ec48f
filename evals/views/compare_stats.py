"""The compare page's paired comparisons: the verdicts it leads with (forest
plot and table), the flips table and the scenarios only one run has.

Thin: the numbers come from the ``--stat`` gate's verdict the comparison
carries (``evals.services.compare``), the wording from
``evals.core.compare_stats``, the figure from ``evals.charts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest
from django.utils.http import urlencode

from evals import charts
from evals.core.compare_stats import (
    VerdictText,
    case_link_ids,
    shown_interval,
    verdict_text,
)
from evals.selectors.compare_scenarios import scenario_case_ids
from evals.services.compare import Comparison
from evals.views.dashboard import query_url

FLIPS_PER_PAGE = 50
FLIP_ORDERS = {
    "worst": "most likely pass → fail first",
    "gains": "most likely fail → pass first",
    "scenario": "by scenario",
}
ONLY_SHOWN = 50


@dataclass(frozen=True, slots=True)
class FlipRow:
    benchmark_id: str
    scenario: str
    to_fail: float
    to_pass: float
    url: str | None

    @property
    def label(self) -> str:
        if self.to_fail == 1:
            return "pass → fail"
        if self.to_pass == 1:
            return "fail → pass"
        return "may flip"

    @property
    def to_fail_text(self) -> str:
        return f"{100 * self.to_fail:.0f}%"

    @property
    def to_pass_text(self) -> str:
        return f"{100 * self.to_pass:.0f}%"


def _flip_rows(comparison: Comparison, order: str) -> list[FlipRow]:
    stat = comparison.stat
    if stat is None:
        return []
    rows = [
        FlipRow(b.benchmark_id, f.scenario, f.to_fail, f.to_pass, None)
        for b in stat.benchmarks
        for f in b.flips
    ]
    if order == "gains":
        rows.sort(key=lambda r: (-r.to_pass, -r.to_fail, r.benchmark_id, r.scenario))
    elif order == "scenario":
        rows.sort(key=lambda r: (r.benchmark_id, r.scenario))
    else:
        rows.sort(key=lambda r: (-r.to_fail, -r.to_pass, r.benchmark_id, r.scenario))
    return rows


def _linked(
    comparison: Comparison, rows: list[FlipRow], pairs: dict[str, tuple[str, str]]
) -> list[FlipRow]:
    """The shown flips with the URL of their two outputs side by side."""
    out: list[FlipRow] = []
    for benchmark_id in sorted({row.benchmark_id for row in rows}):
        ids = pairs.get(benchmark_id)
        scenarios = [r.scenario for r in rows if r.benchmark_id == benchmark_id]
        pair = next(
            (p for p in comparison.pairs if p.benchmark_id == benchmark_id), None
        )
        # Only the case ids of the shown scenarios are read, not every case.
        epochs = max(
            (
                c.k
                for b in (comparison.stat.benchmarks if comparison.stat else ())
                if b.benchmark_id == benchmark_id
                for c in b.comparisons
            ),
            default=1,
        )
        case_ids = (
            scenario_case_ids(pair, scenarios, epochs=epochs)
            if pair is not None
            else []
        )
        links = case_link_ids(scenarios, case_ids)
        for row in rows:
            if row.benchmark_id != benchmark_id:
                continue
            case_id = links.get(row.scenario)
            url = (
                query_url(
                    "evals:compare-case",
                    [("base", ids[0]), ("candidate", ids[1]), ("case", case_id)],
                )
                if ids is not None and case_id is not None
                else None
            )
            out.append(
                FlipRow(row.benchmark_id, row.scenario, row.to_fail, row.to_pass, url)
            )
    order = {(r.benchmark_id, r.scenario): i for i, r in enumerate(rows)}
    return sorted(out, key=lambda r: order[(r.benchmark_id, r.scenario)])


def _forest_label(
    benchmark_id: str, metric: str, several: bool, one_metric: bool
) -> str:
    """A row of the forest plot: the metric, or with several benchmarks the
    benchmark (and the metric when a benchmark has more than one); short,
    so that the plot keeps its width on a phone."""
    if not several:
        return metric
    return benchmark_id if one_metric else f"{benchmark_id} · {metric}"


def stat_context(
    request: HttpRequest,
    comparison: Comparison,
    *,
    identity: list[tuple[str, str]],
    pairs: dict[str, tuple[str, str]],
) -> dict[str, Any]:
    """What ``compare.html`` reads of the paired comparisons."""
    stat = comparison.stat
    if stat is None:
        return {"stat": None, "stat_note": comparison.stat_note}
    adjusted = stat.comparison_count > 1
    several = len(stat.benchmarks) > 1
    verdicts: list[VerdictText] = [
        verdict_text(b.benchmark_id, c, paired=b.paired, adjusted=adjusted)
        for b in stat.benchmarks
        for c in b.comparisons
    ]
    one_metric = all(len(b.comparisons) == 1 for b in stat.benchmarks)
    forest = charts.forest_figure(
        [
            (
                _forest_label(b.benchmark_id, c.metric, several, one_metric),
                c.delta,
                *shown_interval(c),
                c.verdict.value,
            )
            for b in stat.benchmarks
            for c in b.comparisons
        ]
    )
    order = request.GET.get("flips", "")
    order = order if order in FLIP_ORDERS else "worst"
    flips = _flip_rows(comparison, order)
    flip_page = Paginator(flips, FLIPS_PER_PAGE).get_page(request.GET.get("fpage"))
    k = max((c.k for b in stat.benchmarks for c in b.comparisons), default=1)
    only = [
        (v.benchmark_id, side, names[:ONLY_SHOWN], len(names))
        for v in verdicts
        if v.metric == "passRate"
        for side, names in (("base", v.only_base), ("candidate", v.only_candidate))
        if names
    ]
    return {
        "stat": stat,
        "stat_note": comparison.stat_note,
        "verdicts": verdicts,
        "several_benchmarks": several,
        "forest_figure": forest,
        "holm_count": stat.comparison_count if adjusted else 0,
        "not_judged": [
            (b.benchmark_id, b.not_judged) for b in stat.benchmarks if b.not_judged
        ],
        "flip_k": k,
        "flips_unknown": not any(b.paired for b in stat.benchmarks),
        "flip_page": flip_page,
        "flip_rows": _linked(comparison, list(flip_page.object_list), pairs),
        "flip_total": len(flips),
        "flip_order": order,
        "flip_orders": [
            (key, label, query_url("evals:compare", [*identity, ("flips", key)]))
            for key, label in FLIP_ORDERS.items()
        ],
        "flip_query": urlencode([*identity, ("flips", order)]),
        "only_one_run": only,
    }
