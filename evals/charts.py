"""Plotly figures of the evals pages, built as plain dicts in one place.

A view puts a figure in its context, the template emits it with
``json_script`` and the page's script calls ``Plotly.newPlot``; no chart
logic lives in templates or scripts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from evals.models import Run
from evalsite.charts import chart_layout

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
        "layout": chart_layout(
            "Rates per run",
            xaxis={"title": {"text": "run"}, "type": "category"},
            yaxis={"title": {"text": "rate"}, "range": [0, 1.05]},
        ),
    }


# --- dashboard: compare and trends --------------------------------------------
#
# Figures whose points open a page carry that page's URL in ``customdata``;
# the page script navigates there on click, so a chart is never a dead end.

BASE_COLOUR = "#8c959f"
CANDIDATE_COLOUR = "#1f5fbf"
CHANGE_COLOURS = {
    "pass_to_fail": "#c62828",
    "fail_to_pass": "#1a7f37",
    "new": "#1f5fbf",
    "missing": "#9a6700",
    "still_failing": "#e6a0a0",
    "still_passing": "#9fd3ae",
}
# Words that mark a metric living on [0, 1], drawn with the pass rate.
_RATE_WORDS = ("rate", "proxy", "score", "recall", "precision", "coverage")


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    return chart_layout(title, **extra)


def is_rate_metric(name: str, *values: float | None) -> bool:
    """A metric shown on the rates chart: a rate-like name, values on [0, 1]."""
    lowered = name.lower()
    return any(word in lowered for word in _RATE_WORDS) and all(
        value is not None and 0 <= value <= 1 for value in values
    )


def compare_rates_figure(
    rows: Sequence[tuple[str, float | None, float | None]],
    *,
    base_label: str,
    candidate_label: str,
) -> dict[str, Any] | None:
    """Grouped bars, base next to candidate, one group per ``(label, base,
    candidate)`` row; ``None`` when there is nothing to draw."""
    if not rows:
        return None
    labels = [label for label, _, _ in rows]
    return {
        "data": [
            {
                "type": "bar",
                "name": base_label,
                "x": labels,
                "y": [base for _, base, _ in rows],
                "marker": {"color": BASE_COLOUR},
            },
            {
                "type": "bar",
                "name": candidate_label,
                "x": labels,
                "y": [candidate for _, _, candidate in rows],
                "marker": {"color": CANDIDATE_COLOUR},
            },
        ],
        "layout": _layout(
            "Rates, base vs candidate",
            barmode="group",
            # Long benchmark ids are written slanted below the bars; the
            # legend goes under them (chart_layout keeps them apart).
            xaxis={"type": "category"},
            yaxis={"title": {"text": "rate"}, "range": [0, 1.05]},
        ),
    }


def case_changes_figure(
    counts: Sequence[tuple[str, str, int, str]],
) -> dict[str, Any]:
    """Cases per change, one bar per ``(change, label, count, url)``; a click
    on a bar opens the case table filtered to that change."""
    return {
        "data": [
            {
                "type": "bar",
                "x": [label for _, label, _, _ in counts],
                "y": [count for _, _, count, _ in counts],
                "marker": {
                    "color": [CHANGE_COLOURS.get(c, BASE_COLOUR) for c, *_ in counts]
                },
                "customdata": [url for *_, url in counts],
                "hovertemplate": "%{x}: %{y} cases<br>click to list them"
                "<extra></extra>",
            }
        ],
        "layout": _layout(
            "Cases by change",
            showlegend=False,
            xaxis={"type": "category"},
            yaxis={"title": {"text": "cases"}, "rangemode": "tozero"},
        ),
    }


# Runs that all finished within this span would put the ticks of a date axis
# milliseconds apart; such a trend is drawn over run order instead.
DATE_AXIS_MIN_SPAN_S = 60


# Up to this many runs on a run-order axis, every run gets its own tick.
EVERY_RUN_TICKED = 20

# Two runs that finished closer together than this share of the chart's
# span (or within the same second) would be drawn on one spot, one hiding
# the other: such a trend is drawn over run order too.
CROWDED_SHARE = 1 / 300


def _crowded(moments: Sequence[Any]) -> bool:
    """Whether two of the finish times would land on the same spot of a
    date axis."""
    ordered = sorted(moments)
    span = (ordered[-1] - ordered[0]).total_seconds()
    closest = min(
        (later - earlier).total_seconds()
        for earlier, later in zip(ordered, ordered[1:], strict=False)
    )
    same_second = len({m.replace(microsecond=0) for m in ordered}) < len(ordered)
    return same_second or closest < span * CROWDED_SHARE


def time_axis(points: Sequence[Any]) -> tuple[list[Any], dict[str, Any]]:
    """The x values and x axis of a chart over runs: their finish times on a
    date axis (never ticking below a second), or, when they all finished
    within ``DATE_AXIS_MIN_SPAN_S``, when two would share a spot on the axis
    (``_crowded``) or when there is one, their order (1 = the oldest; the
    hover names the run) on a whole-number axis."""
    moments = [p.completed_at or p.started_at for p in points]
    if (
        len(moments) < 2
        or (max(moments) - min(moments)).total_seconds() < DATE_AXIS_MIN_SPAN_S
        or _crowded(moments)
    ):
        axis: dict[str, Any] = {
            "title": {"text": "run, oldest first"},
            "type": "linear",
            "tickformat": "d",
        }
        if len(points) <= EVERY_RUN_TICKED:
            axis.update(tick0=1, dtick=1)
        return list(range(1, len(points) + 1)), axis
    return [str(m.isoformat()) for m in moments], {
        "title": {"text": "run finished"},
        "type": "date",
        "tickformatstops": [{"dtickrange": [None, 1000], "value": "%H:%M:%S"}],
    }


def trend_figure(
    points: Sequence[Any],
    *,
    metric: str,
    baseline_value: float | None = None,
    baseline_label: str = "baseline",
    intervals: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, Any] | None:
    """``metric`` over runs (x: completion time), each point linking to its
    run, with the baseline as a dashed reference line when there is one and
    a shaded band of each run's 95% interval (``intervals``, by run id)
    when given.

    ``points`` are ``evals.selectors.trends.TrendPoint``-shaped: ``run_id``, ``url``,
    ``completed_at``/``started_at`` and ``value``.
    """
    shown = [p for p in points if p.value is not None]
    if not shown:
        return None
    x, xaxis = time_axis(shown)
    data: list[dict[str, Any]] = []
    if intervals:
        bounds = [intervals.get(p.run_id) for p in shown]
        data.extend(
            interval_band(
                x,
                [_finite(b[0]) if b else None for b in bounds],
                [_finite(b[1]) if b else None for b in bounds],
            )
        )
    data += [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": metric,
            "x": x,
            "y": [p.value for p in shown],
            "text": [p.run_id for p in shown],
            "customdata": [p.url for p in shown],
            "hovertemplate": "%{text}<br>%{y}<br>click to open the run<extra></extra>",
            "line": {"color": CANDIDATE_COLOUR},
        }
    ]
    if baseline_value is not None:
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": baseline_label,
                "x": [x[0], x[-1]],
                "y": [baseline_value, baseline_value],
                "line": {"color": "#9a6700", "dash": "dash"},
                "hoverinfo": "name+y",
            }
        )
    return {
        "data": data,
        "layout": _layout(
            f"{metric} over runs",
            xaxis=xaxis,
            yaxis={"title": {"text": metric}, "rangemode": "tozero"},
        ),
    }


def latency_figure(points: Sequence[Any]) -> dict[str, Any] | None:
    """Latency p50 and p95 (ms) over runs; ``None`` when no run has them."""
    shown = [
        p
        for p in points
        if p.metrics.get("latency_p50_ms") is not None
        or p.metrics.get("latency_p95_ms") is not None
    ]
    if not shown:
        return None
    x, xaxis = time_axis(shown)
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": label,
            "x": x,
            "y": [p.metrics.get(key) for p in shown],
            "text": [p.run_id for p in shown],
            "customdata": [p.url for p in shown],
            "hovertemplate": "%{text}<br>%{y} ms<extra>" + label + "</extra>",
            "line": {"color": colour},
        }
        for key, label, colour in (
            ("latency_p50_ms", "p50", CANDIDATE_COLOUR),
            ("latency_p95_ms", "p95", "#c62828"),
        )
    ]
    return {
        "data": data,
        "layout": _layout(
            "Latency over runs",
            xaxis=xaxis,
            yaxis={"title": {"text": "ms"}, "rangemode": "tozero"},
        ),
    }


def action_compulsion_figure(points: Sequence[Any]) -> dict[str, Any] | None:
    """Each run as a point: action_rate (x) against compulsion_proxy (y).

    Acting more is fine while compulsion stays at zero; points climbing the
    y axis are runs that act where acting is discouraged.
    """
    shown = [
        p
        for p in points
        if p.metrics.get("action_rate") is not None
        and p.metrics.get("compulsion_proxy") is not None
    ]
    if not shown:
        return None
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "markers",
                "name": "runs",
                "x": [p.metrics["action_rate"] for p in shown],
                "y": [p.metrics["compulsion_proxy"] for p in shown],
                "text": [p.run_id for p in shown],
                "customdata": [p.url for p in shown],
                "hovertemplate": "%{text}<br>action_rate %{x}<br>"
                "compulsion_proxy %{y}<extra></extra>",
                "marker": {
                    "size": 10,
                    "color": [
                        "#c62828" if p.metrics["compulsion_proxy"] > 0 else "#1a7f37"
                        for p in shown
                    ],
                },
            }
        ],
        "layout": _layout(
            "action_rate vs compulsion_proxy",
            showlegend=False,
            xaxis={"title": {"text": "action_rate"}, "range": [-0.05, 1.05]},
            yaxis={"title": {"text": "compulsion_proxy"}, "range": [-0.05, 1.05]},
        ),
    }


# --- paired comparisons: the forest plot and interval bands -------------------

VERDICT_COLOURS = {
    "regression": "#c62828",
    "improvement": "#1a7f37",
    "no change": "#1f5fbf",
    "inconclusive": "#8c959f",
}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def forest_figure(
    rows: Sequence[tuple[str, float, float, float, str]],
) -> dict[str, Any] | None:
    """Per ``(label, delta, low, high, verdict)`` row the delta, its 95% interval
    as a horizontal error bar, coloured (inconclusive grey) and worded."""
    if not rows:
        return None
    data: list[dict[str, Any]] = []
    for verdict, colour in VERDICT_COLOURS.items():
        mine = [row for row in rows if row[4] == verdict]
        if not mine:
            continue
        data.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": verdict,
                "x": [_finite(delta) for _, delta, _, _, _ in mine],
                "y": [label for label, _, _, _, _ in mine],
                "text": [verdict for _ in mine],
                "textposition": "top center",
                "textfont": {"color": colour},
                "marker": {"color": colour, "size": 10},
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [_finite(high - delta) for _, delta, _, high, _ in mine],
                    "arrayminus": [
                        _finite(delta - low) for _, delta, low, _, _ in mine
                    ],
                    "color": colour,
                    "thickness": 2,
                    "width": 6,
                },
                "hovertemplate": "%{y}: %{x:+.4f}<extra>" + verdict + "</extra>",
            }
        )
    # The line at 0 (no change) is always in view.
    ends = [v for _, d, lo, hi, _ in rows for v in (d, lo, hi) if math.isfinite(v)]
    low, high = min([0.0, *ends]), max([0.0, *ends])
    pad = (high - low) * 0.08 or 0.05
    return {
        "data": data,
        "layout": _layout(
            "Candidate minus base, with 95% intervals",
            height=max(220, 110 + 60 * len(rows)),
            xaxis={
                "title": {"text": "candidate − base"},
                "range": [low - pad, high + pad],
                "zeroline": True,
                "zerolinecolor": "#57606a",
                "zerolinewidth": 1,
            },
            yaxis={
                "type": "category",
                "categoryorder": "array",
                "categoryarray": [row[0] for row in rows][::-1],
            },
        ),
    }


def interval_band(
    x: Sequence[Any], low: Sequence[float | None], high: Sequence[float | None]
) -> list[dict[str, Any]]:
    """A shaded 95% interval band: the lower edge, the upper filled to it."""
    edge = {"type": "scatter", "mode": "lines", "line": {"width": 0}, "x": list(x)}
    edge["hoverinfo"] = "skip"
    return [
        {**edge, "name": "95% interval (low)", "y": list(low), "showlegend": False},
        {
            **edge,
            "name": "95% interval",
            "y": list(high),
            "fill": "tonexty",
            "fillcolor": "rgba(31, 95, 191, 0.15)",
        },
    ]
