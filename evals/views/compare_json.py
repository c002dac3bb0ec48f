"""The compare page's JSON download: the comparison's summary and one
keyset page of its cases (``casePage`` says how to read the next), with the
paired comparisons and the cost and latency of the same runs."""

from __future__ import annotations

from django.utils.http import urlencode

from evals.core.compare import CaseCursor, CaseFilter, cursor_text
from evals.core.exports import Export, comparison_to_json, json_export
from evals.core.gate_stat_report import stat_verdict_to_json
from evals.selectors.compare_cases import case_diffs_page
from evals.services.compare import Comparison
from evals.services.compare_usage import comparison_usage, usage_to_json
from evals.views.dashboard import query_url

JSON_CASES_PER_PAGE = 1000


def next_page_url(
    identity: list[tuple[str, str]],
    filters: list[tuple[str, str]],
    cursor: CaseCursor | None,
) -> str | None:
    if cursor is None:
        return None
    query = urlencode([*identity, *filters, ("after", cursor_text(cursor))])
    return f"?{query}#cases-heading"


def json_answer(
    comparison: Comparison,
    wanted: CaseFilter,
    after: CaseCursor | None,
    identity: list[tuple[str, str]],
    matching: int,
    filename: str,
) -> Export:
    """The JSON download: the summary and one page of the matching cases
    (``casePage.next`` is the URL of the next; the cases CSV has them all)."""
    cases, next_cursor = case_diffs_page(
        comparison.pairs, wanted, after=after, limit=JSON_CASES_PER_PAGE
    )
    next_url = (
        query_url(
            "evals:compare",
            [
                *identity,
                *wanted.to_query(),
                ("format", "json"),
                ("after", cursor_text(next_cursor)),
            ],
        )
        if next_cursor is not None
        else None
    )
    return json_export(
        {
            **comparison_to_json(comparison, cases=cases, wanted=wanted),
            # Keyset paging of ``cases``: worst first, at most ``limit``.
            "casePage": {
                "limit": JSON_CASES_PER_PAGE,
                "matching": matching,
                "after": cursor_text(after) if after is not None else None,
                "next": cursor_text(next_cursor) if next_cursor is not None else None,
                "nextUrl": next_url,
            },
            # The paired comparisons ``--stat`` makes of the same runs.
            "statistics": stat_verdict_to_json(comparison.stat)
            if comparison.stat is not None
            else None,
            "statisticsNote": comparison.stat_note or None,
            # What the runs' model calls cost and how long they took.
            "costAndLatency": usage_to_json(comparison_usage(comparison)),
        },
        filename,
    )
