"""The plotly figure of what runs cost and how long their model calls took,
over a benchmark's runs (the trends page). Kept beside ``evals.charts``
(which is at the size a module may have) and built the same way: plain
dicts, the runs on the same time axis (``evals.charts.time_axis``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.charts import CANDIDATE_COLOUR, time_axis
from evalsite.charts import chart_layout

COST_COLOUR = "#6a3d9a"


def usage_trend_figure(
    points: Sequence[Any], usage: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Each run's total model-call cost (USD, left axis) and the p95 over
    its cases of the model time per case (ms, right axis); a run with an
    unpriced call has no cost point. ``usage`` maps run ids to objects with
    ``calls``, ``cost_usd`` and ``latency_p95_ms``; ``None`` when no run
    has model calls recorded."""
    shown = [p for p in points if getattr(usage.get(p.run_id), "calls", 0)]
    if not shown:
        return None
    x, xaxis = time_axis(shown)
    series = (
        ("cost_usd", "cost per run", COST_COLOUR, "y", "$%{y:.4f}", "solid"),
        (
            "latency_p95_ms",
            "model time p95",
            CANDIDATE_COLOUR,
            "y2",
            "%{y:.0f} ms",
            "dot",
        ),
    )
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": label,
            "x": x,
            "y": [getattr(usage[p.run_id], key) for p in shown],
            "yaxis": axis,
            "text": [p.run_id for p in shown],
            "customdata": [p.url for p in shown],
            "hovertemplate": "%{text}<br>" + value + "<extra>" + label + "</extra>",
            # Two axes: the dotted line is read against the right one.
            "line": {"color": colour, "dash": dash},
        }
        for key, label, colour, axis, value, dash in series
    ]
    return {
        "data": data,
        "layout": chart_layout(
            "Cost and model time over runs",
            xaxis=xaxis,
            yaxis={"title": {"text": "USD per run"}, "rangemode": "tozero"},
            yaxis2={
                "title": {"text": "ms, p95 per case"},
                "automargin": True,
                "overlaying": "y",
                "side": "right",
                "rangemode": "tozero",
                "showgrid": False,
            },
        ),
    }
