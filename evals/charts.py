"""Plotly figures of the evals pages, built as plain dicts in one place.

A view puts a figure in its context, the template emits it with
``json_script`` and the page's script calls ``Plotly.newPlot``; no chart
logic lives in templates or scripts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evals.models import Run

TREND_METRICS: tuple[tuple[str, str], ...] = (
    ("action_rate", "action rate"),
    ("compulsion_proxy", "compulsion proxy"),
    ("grounding_pass_rate", "grounding pass rate"),
    ("repetition_rate", "repetition rate"),
)


def suite_trend_figure(runs: Sequence[Run]) -> dict[str, Any]:
    """Rates of a suite's finished runs in start order, one line per metric,
    plus the share of passing scenarios; x is the run id (runs are few and
    ids sort by time)."""
    run_ids = [r.run_id for r in runs]
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": label,
            "x": run_ids,
            "y": [r.metrics.get(key) for r in runs],
        }
        for key, label in TREND_METRICS
    ]
    data.append(
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "scenario pass rate",
            "x": run_ids,
            "y": [round(r.pass_rate, 4) for r in runs],
        }
    )
    return {
        "data": data,
        "layout": {
            "title": {"text": "Rates per run"},
            "xaxis": {"title": {"text": "run"}, "type": "category"},
            "yaxis": {"title": {"text": "rate"}, "range": [0, 1.05]},
            "legend": {"orientation": "h"},
            "margin": {"t": 40, "r": 10, "b": 80, "l": 50},
            "height": 360,
        },
    }
