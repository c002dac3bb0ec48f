"""Static files: the plotly bundles hold every trace type the charts draw,
and files whose name changes with their content are cached for a year."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

REPO = Path(__file__).resolve().parents[2]
# The trace modules of plotly's partial bundles (their README).
BASIC_TRACES = {"bar", "pie", "scatter"}
CARTESIAN_TRACES = BASIC_TRACES | {
    "box",
    "contour",
    "heatmap",
    "histogram",
    "histogram2d",
    "histogram2dcontour",
    "image",
    "scatterternary",
    "violin",
}
# "type" values in figure dicts that are not trace types (axis and menu types,
# and error bars' "data" / "percent" / "constant" / "sqrt").
NOT_TRACES = {
    "buttons", "category", "date", "dropdown", "linear", "log",
    "data", "percent", "constant", "sqrt",
}  # fmt: skip
BUNDLE_OF_APP = {
    "evals": ("plotly-basic-3.7.0.min.js", BASIC_TRACES),
    "prkeepalive": ("plotly-basic-3.7.0.min.js", BASIC_TRACES),
    "gridworld": ("plotly-cartesian-3.7.0.min.js", CARTESIAN_TRACES),
}


@pytest.mark.parametrize("app", sorted(BUNDLE_OF_APP))
def test_pages_load_a_bundle_with_every_trace_type_they_draw(app: str) -> None:
    bundle, traces = BUNDLE_OF_APP[app]
    source = (REPO / app / "charts.py").read_text("utf-8")
    drawn = set(re.findall(r'"type": "([a-z0-9]+)"', source)) - NOT_TRACES

    assert drawn
    assert drawn <= traces
    scripts = {
        match
        for page in (REPO / "templates" / app).rglob("*.html")
        for match in re.findall(r"vendor/(plotly[^'\"]+)", page.read_text("utf-8"))
    }
    assert scripts == {bundle}
    assert (REPO / "static" / "vendor" / bundle).is_file()


def test_vendored_bundle_is_cached_for_a_year_and_css_is_revalidated() -> None:
    client = Client()

    bundle = client.get("/static/vendor/plotly-basic-3.7.0.min.js")
    css = client.get("/static/css/base.css")

    assert bundle.status_code == css.status_code == 200
    assert bundle["Cache-Control"] == "max-age=315360000, public, immutable"
    # Revalidated soon (0 s in development, 60 s otherwise), never immutable.
    assert css["Cache-Control"] in ("max-age=0, public", "max-age=60, public")


def test_hashed_names_are_immutable_plain_names_are_not(settings: object) -> None:
    test = re.compile(settings.WHITENOISE_IMMUTABLE_FILE_TEST)  # type: ignore[attr-defined]

    assert test.search("/static/css/base.3f2a1b4c5d6e.css")
    assert test.search("/static/vendor/plotly-basic-3.7.0.min.4f2a1b4c5d6e.js")
    assert not test.search("/static/css/base.css")
    assert not test.search("/static/evals/js/figures.js")
