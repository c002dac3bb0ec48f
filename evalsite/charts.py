"""The layout every chart of the site starts from (evals, PR keepalive), so
a title, a legend and the axes never sit on one another at any width.

The title is pinned to the top left of the figure and the legend to its
bottom, both placed against the whole figure rather than the plot: plotly
then widens the top and bottom margins to hold them, however many lines a
legend wraps to on a phone, and the plot, its tick labels and axis titles
take what is left. (A legend placed against the plot, above or below it,
is not counted in: on a phone it wrapped over the title or the axis title.)
"""

from __future__ import annotations

from typing import Any

TITLE = {
    "x": 0,
    "xanchor": "left",
    "yref": "container",
    "y": 1,
    "yanchor": "top",
    "pad": {"t": 8, "l": 8},
    "automargin": True,
}
LEGEND = {
    "orientation": "h",
    "x": 0,
    "xanchor": "left",
    "yref": "container",
    "y": 0,
    "yanchor": "bottom",
}
MARGIN = {"t": 48, "r": 10, "b": 10, "l": 50}
HEIGHT = 360


def chart_layout(title: str, **extra: Any) -> dict[str, Any]:
    """A plotly layout titled ``title``; ``extra`` adds or replaces keys
    (axes, ``barmode``, ``showlegend``...). Both axes make room for their
    labels (``automargin``) unless an axis says otherwise."""
    layout: dict[str, Any] = {
        "title": {**TITLE, "text": title},
        "legend": dict(LEGEND),
        "margin": dict(MARGIN),
        "height": HEIGHT,
        "hovermode": "closest",
    }
    layout.update(extra)
    # The axes make room for their tick labels and titles themselves: the
    # bottom margin above only holds the legend.
    for axis in ("xaxis", "yaxis"):
        layout[axis] = {"automargin": True, **layout.get(axis, {})}
    return layout
