"""Plotly figures of the gridworld pages, built as plain dicts in one place.

A view puts a figure in its context, the template emits it with
``json_script`` and the page's script calls ``Plotly.newPlot``; no chart
logic lives in templates or scripts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gridworld.core.batch_figures import Profile
from gridworld.core.metrics import rolling_distance
from gridworld.core.types import Q

CELL_COLOURS = [[0, "#f4f4f4"], [0.34, "#f4f4f4"], [0.34, "#444"], [0.67, "#444"],
                [0.67, "#d9534f"], [1, "#d9534f"]]  # fmt: skip
MARGIN = {"t": 40, "r": 10, "b": 50, "l": 50}
# Above the plot: below it, a legend that wraps on a phone covers the x axis
# title (plotly places a horizontal legend just under the axis).
LEGEND_ABOVE = {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"}
# A titled chart keeps its title at the top edge, above that legend.
TITLE_ABOVE_LEGEND = {"y": 0.98, "yanchor": "top"}


def steps_figure(metrics: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Steps per episode in episode order (reached goals and misses apart),
    with the BFS optimum from the start."""
    reached = [(i, m["steps"]) for i, m in enumerate(metrics) if m["success"]]
    missed = [(i, m["steps"]) for i, m in enumerate(metrics) if not m["success"]]
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "markers",
                "name": "reached the goal",
                "x": [i for i, _ in reached],
                "y": [s for _, s in reached],
            },
            {
                "type": "scatter",
                "mode": "markers",
                "name": "did not reach it",
                "marker": {"symbol": "x"},
                "x": [i for i, _ in missed],
                "y": [s for _, s in missed],
            },
            {
                "type": "scatter",
                "mode": "lines",
                "name": "shortest safe path",
                "line": {"dash": "dot"},
                "x": list(range(len(metrics))),
                "y": [m["optimal_steps"] for m in metrics],
            },
        ],
        "layout": {
            "title": TITLE_ABOVE_LEGEND | {"text": "Steps per episode"},
            "xaxis": {"title": {"text": "episode"}},
            "yaxis": {"title": {"text": "steps"}, "rangemode": "tozero"},
            "legend": LEGEND_ABOVE,
            "margin": {**MARGIN, "t": 70},
            "height": 340,
        },
    }


def batch_distance_figure(distances: Sequence[Sequence[int]]) -> dict[str, Any]:
    """P(t) over a batch: the distance to goal at step t averaged over the
    episodes still running, and its rolling mean over 10 steps."""
    longest = max((len(d) for d in distances), default=0)
    mean: list[int] = []
    for t in range(longest):
        values = [d[t] for d in distances if len(d) > t]
        mean.append(sum(values) * 1000 // len(values))
    smoothed = rolling_distance(mean)
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "lines",
                "name": "mean distance at step t",
                "x": list(range(longest)),
                "y": [v / 1000 for v in mean],
            },
            {
                "type": "scatter",
                "mode": "lines",
                "name": "P(t), rolling mean over 10 steps",
                "x": list(range(longest)),
                "y": [v / 1_000_000 for v in smoothed],
            },
        ],
        "layout": {
            "title": TITLE_ABOVE_LEGEND | {"text": "Distance to goal, P(t)"},
            "xaxis": {"title": {"text": "step"}},
            "yaxis": {"title": {"text": "cells"}, "rangemode": "tozero"},
            "legend": LEGEND_ABOVE,
            "margin": {**MARGIN, "t": 70},
            "height": 340,
        },
    }


def rejected_figure(rejected: dict[str, int]) -> dict[str, Any]:
    """Refused proposals by reason (gate order)."""
    order = [
        "env:out_of_bounds",
        "env:wall_collision",
        "env:hazard_collision",
        "kernel:inadmissible",
        "coh:lyapunov_increase",
        "abs:absorbed",
    ]
    names = [n for n in order if n in rejected] + sorted(
        n for n in rejected if n not in order
    )
    return {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "x": [rejected[n] for n in names],
                "y": names,
            }
        ],
        "layout": {
            "title": {"text": "Refused proposals by reason"},
            "xaxis": {"title": {"text": "proposals"}},
            "yaxis": {"automargin": True, "autorange": "reversed"},
            "margin": {**MARGIN, "l": 160},
            "height": 80 + 36 * max(len(names), 1),
        },
    }


def grid_figure(receipt: dict[str, Any]) -> dict[str, Any]:
    """The map (walls dark, hazards red), the agent's path, where the goal
    moved, a slider that steps through the episode and a Play button that
    animates it."""
    config = receipt["config"]
    rows = [row for row in config["map"]["text"].split("\n") if row]
    value = {".": 0, "S": 0, "G": 0, "#": 1, "x": 2}
    z = [[value[c] for c in row] for row in rows]
    start = config["start"]
    steps = receipt["steps"]
    xs = [start[0]] + [s["position"][0] for s in steps]
    ys = [start[1]] + [s["position"][1] for s in steps]
    goals = [config["goal"]] + [shift["to"] for shift in receipt["drift_schedule"]]
    goal_at = [config["goal"]] + [s["goal"] for s in steps]
    frames = [
        {
            "name": str(t),
            "data": [
                {"x": xs[: t + 1], "y": ys[: t + 1]},
                {"x": [xs[t]], "y": [ys[t]]},
                {"x": [goal_at[t][0]], "y": [goal_at[t][1]]},
            ],
            "traces": [1, 2, 3],
        }
        for t in range(len(xs))
    ]
    return {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "zmin": 0,
                "zmax": 2,
                "colorscale": CELL_COLOURS,
                "showscale": False,
                "hoverinfo": "skip",
                "xgap": 1,
                "ygap": 1,
            },
            {"type": "scatter", "mode": "lines", "name": "path", "x": xs, "y": ys},
            {
                "type": "scatter",
                "mode": "markers",
                "name": "agent",
                "marker": {"size": 14, "color": "#1f77b4"},
                "x": [xs[-1]],
                "y": [ys[-1]],
            },
            {
                "type": "scatter",
                "mode": "markers",
                "name": "goal",
                "marker": {"size": 16, "symbol": "star", "color": "#2ca02c"},
                "x": [goal_at[-1][0]],
                "y": [goal_at[-1][1]],
            },
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": "goal positions",
                "marker": {"size": 9, "symbol": "star-open", "color": "#2ca02c"},
                "text": [str(i) for i in range(len(goals))],
                "textposition": "top center",
                "x": [g[0] for g in goals],
                "y": [g[1] for g in goals],
            },
        ],
        "frames": frames,
        "layout": {
            "xaxis": {
                "dtick": 1,
                "range": [-0.5, len(rows[0]) - 0.5],
                "constrain": "domain",
                "showgrid": False,
                "zeroline": False,
            },
            "yaxis": {
                "dtick": 1,
                "range": [len(rows) - 0.5, -0.5],
                "scaleanchor": "x",
                "showgrid": False,
                "zeroline": False,
            },
            "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom"},
            "margin": {"t": 40, "r": 10, "b": 40, "l": 40},
            "height": 520,
            "updatemenus": [
                {
                    "type": "buttons",
                    "showactive": False,
                    "x": 0,
                    "y": 0,
                    "xanchor": "right",
                    "yanchor": "top",
                    "pad": {"t": 50, "r": 10},
                    "buttons": [
                        {
                            "label": "Play",
                            "method": "animate",
                            "args": [
                                None,
                                {
                                    "fromcurrent": False,
                                    "frame": {"duration": 120, "redraw": False},
                                    "transition": {"duration": 0},
                                },
                            ],
                        }
                    ],
                }
            ],
            "sliders": [
                {
                    "active": len(frames) - 1,
                    "currentvalue": {"prefix": "step "},
                    "steps": [
                        {
                            "label": f["name"],
                            "method": "animate",
                            "args": [
                                [f["name"]],
                                {"mode": "immediate", "frame": {"duration": 0}},
                            ],
                        }
                        for f in frames
                    ],
                }
            ],
        },
    }


def episode_series_figure(receipt: dict[str, Any]) -> dict[str, Any]:
    """P(t) (rolling distance) and the budget over the episode's steps."""
    steps = receipt["steps"]
    distances = [s["task_performance"] for s in steps]
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "lines",
                "name": "distance to goal",
                "x": list(range(len(steps))),
                "y": distances,
            },
            {
                "type": "scatter",
                "mode": "lines",
                "name": "P(t), rolling mean over 10 steps",
                "x": list(range(len(steps))),
                "y": [v / 1000 for v in rolling_distance(distances)],
            },
            {
                "type": "scatter",
                "mode": "lines",
                "name": "budget",
                "yaxis": "y2",
                "x": list(range(len(steps))),
                "y": [s["budget"] / Q for s in steps],
            },
        ],
        "layout": {
            "xaxis": {"title": {"text": "step"}},
            "yaxis": {"title": {"text": "cells"}, "rangemode": "tozero"},
            "yaxis2": {
                "title": {"text": "budget"},
                "overlaying": "y",
                "side": "right",
                "rangemode": "tozero",
            },
            "legend": LEGEND_ABOVE,
            "margin": {**MARGIN, "r": 60},
            "height": 340,
        },
    }


def _profile_axes(profile: Profile) -> dict[str, Any]:
    metric = profile.metric
    better = "higher" if metric.higher_is_better else "lower"
    name = metric.key.replace("_", " ")
    return {
        "xaxis.title.text": f"\u03c4: {name} ({metric.unit}, {better} is better)",
        "yaxis.title.text": "share of episodes above \u03c4",
    }


def profile_figure(profiles: Sequence[Profile]) -> dict[str, Any]:
    """Performance profiles (share of episodes whose metric exceeds tau),
    one line per batch, one metric at a time: a menu at the top right picks
    the metric (the first one shows first). The legend sits in the lower
    left of the plot, where falling profiles leave room, so that nothing
    above the plot has to share a phone's width with the menu."""
    data = []
    buttons = []
    per_metric = [len(p.shares) for p in profiles]
    for number, profile in enumerate(profiles):
        for label, shares in profile.shares:
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "line": {"shape": "hv"},
                    "name": label,
                    "legendgroup": label,
                    "showlegend": True,
                    "visible": number == 0,
                    "x": list(profile.thresholds),
                    "y": list(shares),
                    "hovertemplate": "\u03c4 %{x}: %{y:.1%} of episodes above"
                    "<extra>%{fullData.name}</extra>",
                }
            )
        visible = [
            index == number
            for index, count in enumerate(per_metric)
            for _ in range(count)
        ]
        buttons.append(
            {
                "label": profile.metric.key.replace("_", " "),
                "method": "update",
                "args": [{"visible": visible}, _profile_axes(profile)],
            }
        )
    first = _profile_axes(profiles[0]) if profiles else {}
    return {
        "data": data,
        "layout": {
            "title": {
                "text": "Performance profile",
                "x": 0,
                "xref": "paper",
                "xanchor": "left",
                "y": 0.98,
                "yanchor": "top",
            },
            "xaxis": {
                "title": {"text": first.get("xaxis.title.text", "")},
                "zeroline": False,
            },
            "yaxis": {
                "title": {"text": first.get("yaxis.title.text", "")},
                "range": [0, 1.05],
                "tickformat": ".0%",
            },
            "legend": {
                "x": 0.01,
                "xanchor": "left",
                "y": 0.02,
                "yanchor": "bottom",
                "bgcolor": "rgba(255,255,255,0.85)",
            },
            "margin": {**MARGIN, "t": 80},
            "height": 380,
            "updatemenus": [
                {
                    "type": "dropdown",
                    "buttons": buttons,
                    "active": 0,
                    "x": 1,
                    "xanchor": "right",
                    "y": 1.04,
                    "yanchor": "bottom",
                    "showactive": True,
                }
            ],
        },
    }
