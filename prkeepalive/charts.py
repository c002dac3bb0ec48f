"""Plotly figures of the PR keepalive pages, built as plain dicts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from prkeepalive.core.types import Reason

REASON_COLOURS = {
    Reason.OK.value: "#1a7f37",
    Reason.GATE_PENDING.value: "#9a6700",
    Reason.CAP_REACHED.value: "#bf8700",
    Reason.LOCK_HELD.value: "#8c959f",
    Reason.INSTRUCTION_EMPTY.value: "#c62828",
    Reason.GATE_FAILED.value: "#e85d5d",
}


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
    return {
        "data": data,
        "layout": {
            "barmode": "stack",
            "title": {"text": "Dispatch decisions per day, by reason"},
            "xaxis": {"title": {"text": "day"}, "type": "category"},
            "yaxis": {
                "title": {"text": "decisions"},
                "rangemode": "tozero",
                "tickformat": ",d",
            },
            "legend": {"orientation": "h"},
            "margin": {"t": 40, "r": 10, "b": 60, "l": 50},
            "height": 340,
        },
    }
