"""Layout of the gridworld charts: legends never cover an axis title."""

from __future__ import annotations

from gridworld import charts


def test_legends_sit_above_the_plot_and_below_the_title() -> None:
    """Below the plot a legend that wraps on a phone (390 px) covered the x
    axis title; above it, a titled chart keeps its title at the top edge."""
    metrics = [
        {"steps": 20, "success": True, "optimal_steps": 18},
        {"steps": 30, "success": False, "optimal_steps": 18},
    ]
    figures = [
        charts.steps_figure(metrics),
        charts.batch_distance_figure([[3, 2, 1, 0], [4, 3, 2]]),
    ]
    for figure in figures:
        layout = figure["layout"]
        assert layout["legend"]["yanchor"] == "bottom"
        assert layout["legend"]["y"] > 1
        assert layout["title"]["yanchor"] == "top"
        assert layout["margin"]["t"] >= 70
