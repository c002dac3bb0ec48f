"""The reasons chart of the PR keepalive index page."""

from __future__ import annotations

from datetime import date

from prkeepalive.charts import reason_histogram_figure


def test_a_few_decisions_a_day_tick_every_whole_decision() -> None:
    """With at most two decisions a day plotly would tick 0, 0.5, 1, ... and
    the integer format print 0, 1, 1, 2, 2; the axis steps by one instead."""
    rows = [
        (date(2026, 11, 22), "ok", 1),
        (date(2026, 11, 22), "gate-pending", 1),
        (date(2026, 11, 23), "cap-reached", 1),
    ]
    figure = reason_histogram_figure(rows)
    assert figure is not None
    yaxis = figure["layout"]["yaxis"]
    assert yaxis["dtick"] == 1
    assert yaxis["tickformat"] == ",d"


def test_many_decisions_a_day_leave_the_ticks_to_plotly() -> None:
    rows = [(date(2026, 11, 22), "ok", 30), (date(2026, 11, 23), "ok", 2)]
    figure = reason_histogram_figure(rows)
    assert figure is not None
    assert "dtick" not in figure["layout"]["yaxis"]
    assert reason_histogram_figure([]) is None
