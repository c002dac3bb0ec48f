"""A trend never draws two runs on one spot: runs that finished in the same
second (or so close that their markers would overlap) are drawn over run
order, so a regressed run is never hidden behind another."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from evals import charts

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Point:
    run_id: str
    value: float
    completed_at: datetime

    @property
    def url(self) -> str:
        return f"/evals/runs/{self.run_id}/"

    @property
    def started_at(self) -> datetime:
        return self.completed_at - timedelta(minutes=1)


def test_runs_finished_in_the_same_second_each_get_their_own_spot() -> None:
    points = [
        Point("early", 1.0, T0),
        Point("good", 1.0, T0 + timedelta(hours=2, microseconds=100)),
        Point("regressed", 0.4, T0 + timedelta(hours=2, microseconds=900)),
    ]

    figure = charts.trend_figure(points, metric="passRate")

    assert figure is not None
    line = figure["data"][0]
    assert figure["layout"]["xaxis"]["type"] == "linear"
    assert line["x"] == [1, 2, 3]
    assert line["text"] == ["early", "good", "regressed"]
    assert len(set(line["x"])) == len(points)


def test_runs_a_marker_apart_on_a_long_span_are_drawn_over_run_order() -> None:
    points = [
        Point("a", 1.0, T0),
        Point("b", 1.0, T0 + timedelta(days=10)),
        Point("c", 0.5, T0 + timedelta(days=10, minutes=20)),
    ]

    figure = charts.trend_figure(points, metric="passRate")

    assert figure is not None
    assert figure["layout"]["xaxis"]["type"] == "linear"


def test_runs_well_apart_keep_the_date_axis() -> None:
    points = [Point(f"r{i}", 1.0, T0 + timedelta(hours=i)) for i in range(4)]

    figure = charts.trend_figure(points, metric="passRate")

    assert figure is not None
    assert figure["layout"]["xaxis"]["type"] == "date"
    assert figure["data"][0]["x"][0] == "2026-03-01T12:00:00+00:00"
