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


def metric_value_text(value: object) -> object:
    """A stored metric as the gate writes it (``0.0622``, ``1``, not
    ``0.06222222222222222`` or ``1.0``); anything not a number as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return format_number(value)


def metric_value_rows(metrics: dict[str, object]) -> list[tuple[str, object]]:
    """``(name, value text)`` per metric, by name."""
    return [(name, metric_value_text(metrics[name])) for name in sorted(metrics)]
