"""Plotly figures of the traces pages, built as plain dicts in one place
(the page's script draws them; no chart logic in templates)."""

from __future__ import annotations

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
    days = [d.day.isoformat() for d in spend.per_day]
    hover = [
        f"{d.calls} call{'s' if d.calls != 1 else ''}"
        + (f", {d.unpriced} unpriced (cost unknown)" if d.unpriced else "")
        for d in spend.per_day
    ]
    return {
        "data": [
            {
                "type": "bar",
                "name": "cost of priced calls (USD)",
                "x": days,
                "y": [
                    float(d.cost_usd) if d.cost_usd is not None else 0
                    for d in spend.per_day
                ],
                "marker": {"color": COST_COLOUR},
                "text": hover,
                "hovertemplate": "%{x}: $%{y:.4f}<br>%{text}<extra></extra>",
            },
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "model calls",
                "x": days,
                "y": [d.calls for d in spend.per_day],
                "yaxis": "y2",
                "marker": {"color": CALLS_COLOUR},
                "hovertemplate": "%{x}: %{y} calls<extra></extra>",
            },
        ],
        "layout": chart_layout(
            f"Spend per day, last {spend.days} days",
            xaxis={"title": {"text": "day (UTC)"}, "type": "date"},
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
