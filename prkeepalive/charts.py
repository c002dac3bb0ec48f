"""Plotly figures of the PR keepalive pages, built as plain dicts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from evalsite.charts import chart_layout
from prkeepalive.core.types import Reason

REASON_COLOURS = {
    Reason.OK.value: "#1a7f37",
    Reason.GATE_PENDING.value: "#9a6700",
    Reason.CAP_REACHED.value: "#bf8700",
    Reason.LOCK_HELD.value: "#8c959f",
    Reason.INSTRUCTION_EMPTY.value: "#c62828",
    Reason.GATE_FAILED.value: "#e85d5d",
}
# Up to this many decisions on the tallest day, the y axis ticks every decision.
SMALL_COUNTS = 8


def reason_histogram_figure(
    rows: Sequence[tuple[date, str, int]],
) -> dict[str, Any] | None:
    """Stacked bars: decisions per day, one trace per reason (canonical
    order). ``None`` when there is nothing to draw."""
    if not rows:
        return None
    days = sorted({d for d, _, _ in rows})
    counts = {(d, r): n for d, r, n in rows}
    reasons = [r.value for r in Reason if any(rr == r.value for _, rr, _ in rows)]
    data = [
        {
            "type": "bar",
            "name": reason,
            "x": [d.isoformat() for d in days],
            "y": [counts.get((d, reason), 0) for d in days],
            "marker": {"color": REASON_COLOURS.get(reason, "#6e7781")},
        }
        for reason in reasons
    ]
    yaxis: dict[str, Any] = {
        "title": {"text": "decisions"},
        "rangemode": "tozero",
        "tickformat": ",d",
    }
    tallest = max(sum(counts.get((d, r), 0) for r in reasons) for d in days)
    if tallest <= SMALL_COUNTS:
        # Left to itself plotly ticks 0, 0.5, 1, ... on a short axis, and the
        # integer format would print them 0, 1, 1, 2, 2: one tick per decision.
        yaxis["dtick"] = 1
    return {
        "data": data,
        # The site's chart layout keeps the title and the wrapped legend
        # clear of each other and of the axes on a phone.
        "layout": chart_layout(
            "Dispatch decisions per day, by reason",
            barmode="stack",
            xaxis={"title": {"text": "day"}, "type": "category"},
            yaxis=yaxis,
        ),
    }
