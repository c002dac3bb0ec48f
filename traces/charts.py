"""Plotly figures of the traces pages, built as plain dicts in one place
(the page's script draws them; no chart logic in templates)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from evalsite.charts import chart_layout
from traces.services.usage_pages import AgentSpend

COST_COLOUR = "#1f5fbf"
CALLS_COLOUR = "#8c959f"


def agent_spend_figure(spend: AgentSpend) -> dict[str, Any] | None:
    """Cost per day (bars, priced calls only) and model calls per day (a
    line on its own axis); None when the agent made no call in the window.
    A day's hover text says how many of its calls had no price."""
    if not spend.per_day:
        return None
    # Every day of the window has its bar (0 on a day without calls), so the
    # axis is the window whatever the days with calls.
    found = {d.day: d for d in spend.per_day}
    window = [spend.until - timedelta(days=n) for n in range(spend.days - 1, -1, -1)]
    days = [day.isoformat() for day in window]
    costs = [float(found[d].cost_usd or 0) if d in found else 0.0 for d in window]
    calls = [found[d].calls if d in found else 0 for d in window]
    hover = [
        _day_words(found[d].calls, found[d].unpriced) if d in found else "no calls"
        for d in window
    ]
    return {
        "data": [
            {
                "type": "bar",
                "name": "cost of priced calls (USD)",
                "x": days,
                "y": costs,
                "marker": {"color": COST_COLOUR},
                "customdata": hover,
                "hovertemplate": "%{x}: $%{y:.6f}<br>%{customdata}<extra></extra>",
            },
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "model calls",
                "x": days,
                "y": calls,
                "yaxis": "y2",
                "marker": {"color": CALLS_COLOUR},
                "hovertemplate": "%{x}: %{y} calls<extra></extra>",
            },
        ],
        "layout": chart_layout(
            f"Spend per day, last {spend.days} days",
            xaxis={
                "title": {"text": "day (UTC)"},
                "type": "date",
                "tickformat": "%b %d",
                # Half a day of room either side of the first and last bar.
                "range": [
                    f"{window[0] - timedelta(days=1)} 12:00",
                    f"{window[-1]} 12:00",
                ],
            },
            yaxis={"title": {"text": "USD"}, "rangemode": "tozero"},
            yaxis2={
                "title": {"text": "calls"},
                "overlaying": "y",
                "side": "right",
                "rangemode": "tozero",
                "automargin": True,
            },
        ),
    }


def _day_words(calls: int, unpriced: int) -> str:
    words = f"{calls} call{'s' if calls != 1 else ''}"
    return words + (f", {unpriced} unpriced (cost unknown)" if unpriced else "")
