"""The dashboard's plotly figures, checked as plain dicts (no ORM, no browser)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evals import charts

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Point:
    run_id: str
    value: float | None
    metrics: dict[str, float] = field(default_factory=dict)
    minutes: int = 0

    @property
    def url(self) -> str:
        return f"/evals/runs/{self.run_id}/"

    @property
    def started_at(self) -> datetime:
        return T0 + timedelta(minutes=self.minutes)

    @property
    def completed_at(self) -> datetime:
        return self.started_at + timedelta(minutes=1)


@pytest.mark.parametrize(
    ("name", "values", "expected"),
    [
        ("passRate", (1.0, 0.9), True),
        ("compulsion_proxy", (0.0, 0.25), True),
        ("recallPrecisionAtK", (0.5, 0.7), True),
        ("compulsion_count", (0, 2), False),
        ("latency_p95_ms", (0.5, 0.6), False),
        ("action_rate", (0.3, 1.5), False),
        ("action_rate", (0.3, None), False),
    ],
)
def test_is_rate_metric(
    name: str, values: tuple[float | None, ...], expected: bool
) -> None:
    assert charts.is_rate_metric(name, *values) is expected


def test_rates_figure_puts_base_next_to_candidate() -> None:
    figure = charts.compare_rates_figure(
        [("passRate", 1.0, 0.9), ("compulsion_proxy", 0.0, 0.25)],
        base_label="base r1",
        candidate_label="candidate r2",
    )

    assert figure is not None
    base, candidate = figure["data"]
    assert (base["name"], base["x"], base["y"]) == (
        "base r1",
        ["passRate", "compulsion_proxy"],
        [1.0, 0.0],
    )
    assert (candidate["name"], candidate["y"]) == ("candidate r2", [0.9, 0.25])
    assert figure["layout"]["barmode"] == "group"
    assert figure["layout"]["yaxis"]["range"] == [0, 1.05]


def test_rates_figure_of_nothing_is_none() -> None:
    assert charts.compare_rates_figure([], base_label="a", candidate_label="b") is None


def test_case_changes_bars_link_to_the_filtered_table() -> None:
    figure = charts.case_changes_figure(
        [
            (
                "pass_to_fail",
                "pass -> fail",
                2,
                "/evals/compare?x=1&change=pass_to_fail",
            ),
            (
                "still_passing",
                "still passing",
                18,
                "/evals/compare?x=1&change=still_passing",
            ),
        ]
    )

    (bars,) = figure["data"]
    assert bars["x"] == ["pass -> fail", "still passing"]
    assert bars["y"] == [2, 18]
    assert bars["marker"]["color"] == ["#c62828", "#9fd3ae"]
    assert bars["customdata"] == [
        "/evals/compare?x=1&change=pass_to_fail",
        "/evals/compare?x=1&change=still_passing",
    ]


def test_trend_figure_links_points_and_draws_the_baseline() -> None:
    points = [
        Point("r1", 0.0, minutes=0),
        Point("r2", None),
        Point("r3", 0.25, minutes=9),
    ]

    figure = charts.trend_figure(
        points,
        metric="compulsion_proxy",
        baseline_value=0.1,
        baseline_label="baseline required-main",
    )

    assert figure is not None
    line, baseline = figure["data"]
    assert line["x"] == ["2026-03-01T12:01:00+00:00", "2026-03-01T12:10:00+00:00"]
    assert line["y"] == [0.0, 0.25]
    assert line["text"] == ["r1", "r3"]
    assert line["customdata"] == ["/evals/runs/r1/", "/evals/runs/r3/"]
    assert baseline["name"] == "baseline required-main"
    assert baseline["x"] == [line["x"][0], line["x"][-1]]
    assert baseline["y"] == [0.1, 0.1]
    assert baseline["line"]["dash"] == "dash"
    assert figure["layout"]["xaxis"]["type"] == "date"
    # Never ticks labelled below a second.
    assert figure["layout"]["xaxis"]["tickformatstops"] == [
        {"dtickrange": [None, 1000], "value": "%H:%M:%S"}
    ]


def test_a_single_run_or_runs_within_a_minute_are_drawn_over_run_order() -> None:
    single = charts.trend_figure([Point("r1", 1.0)], metric="m")
    close = charts.latency_figure(
        [
            Point("r1", None, {"latency_p50_ms": 1.0}),
            Point("r2", None, {"latency_p50_ms": 2.0}),
        ]
    )

    for figure, ids in ((single, ["r1"]), (close, ["r1", "r2"])):
        assert figure is not None
        assert figure["layout"]["xaxis"] == {
            "automargin": True,
            "title": {"text": "run, oldest first"},
            "type": "linear",
            "tickformat": "d",
            "tick0": 1,
            "dtick": 1,
        }
        assert figure["data"][0]["x"] == list(range(1, len(ids) + 1))
        assert figure["data"][0]["text"] == ids


def test_trend_without_values_or_baseline() -> None:
    assert charts.trend_figure([Point("r1", None)], metric="m") is None
    figure = charts.trend_figure([Point("r1", 1.0)], metric="m")
    assert figure is not None
    assert len(figure["data"]) == 1


def test_latency_figure_has_p50_and_p95() -> None:
    points = [
        Point("r1", None, {"latency_p50_ms": 100.0, "latency_p95_ms": 300.0}),
        Point("r2", None, {"action_rate": 0.5}),
    ]

    figure = charts.latency_figure(points)

    assert figure is not None
    assert [(t["name"], t["y"]) for t in figure["data"]] == [
        ("p50", [100.0]),
        ("p95", [300.0]),
    ]
    assert charts.latency_figure([Point("r2", None)]) is None


def test_scatter_marks_compulsive_runs_red() -> None:
    points = [
        Point("calm", None, {"action_rate": 0.3, "compulsion_proxy": 0.0}),
        Point("pushy", None, {"action_rate": 0.45, "compulsion_proxy": 0.25}),
        Point("pack", None, {"recallPrecisionAtK": 0.5}),
    ]

    figure = charts.action_compulsion_figure(points)

    assert figure is not None
    (scatter,) = figure["data"]
    assert scatter["x"] == [0.3, 0.45]
    assert scatter["y"] == [0.0, 0.25]
    assert scatter["marker"]["color"] == ["#1a7f37", "#c62828"]
    assert scatter["customdata"] == ["/evals/runs/calm/", "/evals/runs/pushy/"]
    assert charts.action_compulsion_figure([points[2]]) is None


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=8),
            st.floats(0, 1),
            st.floats(0, 1),
        ),
        max_size=20,
    )
)
def test_every_rates_figure_is_plain_json(
    rows: list[tuple[str, float, float]],
) -> None:
    figure = charts.compare_rates_figure(rows, base_label="b", candidate_label="c")

    if not rows:
        assert figure is None
    else:
        assert figure is not None
        assert json.loads(json.dumps(figure)) == figure
        assert len(figure["data"][0]["x"]) == len(rows)
