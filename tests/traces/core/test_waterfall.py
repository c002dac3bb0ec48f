"""The waterfall: parents before children, bars placed by start and length."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from traces.core.waterfall import MIN_WIDTH_PCT, WaterfallSpan, waterfall

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def span(span_id: str, parent: str, start_ms: float, end_ms: float) -> WaterfallSpan:
    return WaterfallSpan(
        span_id,
        parent,
        T0 + timedelta(milliseconds=start_ms),
        T0 + timedelta(milliseconds=end_ms),
    )


def test_children_follow_their_parent_in_start_order_with_depth() -> None:
    spans = [
        span("c2", "root", 600, 1000),
        span("root", "", 0, 1000),
        span("c1", "root", 100, 500),
        span("g1", "c1", 200, 300),
    ]
    laid = waterfall(spans)
    assert [(spans[r.index].span_id, r.depth) for r in laid.rows] == [
        ("root", 0),
        ("c1", 1),
        ("g1", 2),
        ("c2", 1),
    ]
    assert laid.total_ms == 1000
    c1 = laid.rows[1]
    assert (c1.left_pct, c1.width_pct, c1.offset_ms, c1.duration_ms) == (
        10.0,
        40.0,
        100.0,
        400.0,
    )


def test_a_span_whose_parent_is_missing_is_a_root() -> None:
    spans = [span("a", "not-sent", 0, 10), span("b", "", 5, 10)]
    assert [r.depth for r in waterfall(spans).rows] == [0, 0]


def test_a_loop_of_parents_shows_every_span_once() -> None:
    spans = [span("a", "b", 0, 10), span("b", "a", 5, 10), span("c", "", 0, 20)]
    rows = waterfall(spans).rows
    assert sorted(spans[r.index].span_id for r in rows) == ["a", "b", "c"]


def test_a_zero_length_span_still_has_a_visible_bar() -> None:
    rows = waterfall([span("a", "", 0, 1000), span("b", "a", 1000, 1000)]).rows
    assert rows[1].width_pct == MIN_WIDTH_PCT
    assert rows[1].left_pct + rows[1].width_pct <= 100


def test_a_chain_of_five_thousand_nested_spans_needs_no_recursion() -> None:
    spans = [span(f"s{i}", f"s{i - 1}" if i else "", i, 10_000) for i in range(5000)]
    rows = waterfall(spans).rows
    assert len(rows) == 5000
    assert rows[-1].depth == 4999


def test_no_spans_no_rows() -> None:
    assert waterfall([]).rows == ()
