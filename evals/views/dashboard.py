"""Shared pieces of the dashboard pages (compare, trends): page sizes, the
text of numbers and metric directions, and stable URLs made only of a query
string."""

from __future__ import annotations

from collections.abc import Iterable

from django.urls import reverse
from django.utils.http import urlencode

from evals.core.gate import format_number

CASES_PER_PAGE = 50


TREND_ROWS_PER_PAGE = 25


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


def query_url(name: str, pairs: Iterable[tuple[str, str]]) -> str:
    query = urlencode([(key, value) for key, value in pairs if value])
    return f"{reverse(name)}?{query}" if query else reverse(name)


def number_text(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "—"
    text = format_number(value)
    return f"+{text}" if signed and value > 0 and text != "0" else text
