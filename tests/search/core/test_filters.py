"""Filters and cursors read from strings, with a reason per bad parameter."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from search.core.filters import (
    cursor_decode,
    cursor_encode,
    parse_filters,
    parse_time,
    saved_filters,
)


def test_every_filter_is_read() -> None:
    found = parse_filters(
        {
            "agent": "alpha", "run": "r1", "suite": "s", "kind": "thought",
            "since": "2026-03-01", "until": "2026-03-02T10:00:00Z",
            "eligible": "false", "flag": "Ungrounded", "score": "quality",
            "score_min": "2", "score_max": "4.5", "limit": "5",
        }
    )  # fmt: skip
    assert not found.problems
    assert (found.agent, found.run, found.suite, found.kind) == (
        "alpha",
        "r1",
        "s",
        "thought",
    )
    assert found.since == datetime(2026, 3, 1, tzinfo=UTC)
    assert found.until == datetime(2026, 3, 2, 10, tzinfo=UTC)
    assert (found.eligible, found.flag) == (False, "ungrounded")
    assert (found.score, found.score_min, found.score_max, found.limit) == (
        "quality",
        2,
        4.5,
        5,
    )


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"kind": "everything"}, "kind"),
        ({"since": "yesterday"}, "since"),
        ({"until": "0001-01-01T00:00:00+14:00"}, "until"),
        ({"eligible": "maybe"}, "eligible"),
        ({"flag": "two words"}, "flag"),
        ({"score": "q", "score_min": "nan"}, "score_min"),
        ({"score_min": "4"}, "score"),
        ({"score_max": "1", "score_min": "0"}, "score"),
        ({"limit": "0"}, "limit"),
        ({"limit": "9" * 30}, "limit"),
        ({"cursor": "not a cursor"}, "cursor"),
        ({"agent": "a" * 201}, "agent"),
        ({"run": "x\x00y"}, "run"),
    ],
)
def test_a_bad_parameter_is_named_with_its_reason(
    params: dict[str, str], field: str
) -> None:
    problems = parse_filters(params).problems
    assert list(problems) == [field]
    assert problems[field]


def test_cursor_round_trip_and_refusals() -> None:
    when = datetime(2026, 3, 6, 12, 0, 1, 5, tzinfo=UTC)
    assert cursor_decode(cursor_encode(when, 42)) == (when, 42)
    for bad in ("", "===", "a" * 500, "MjAyNnwx", "eHx5"):
        # each bad cursor fails at a different step, with its own message
        with pytest.raises(ValueError):  # noqa: PT011
            cursor_decode(bad)


def test_a_time_without_zone_is_utc() -> None:
    assert parse_time("2026-03-06T12:00") == datetime(2026, 3, 6, 12, tzinfo=UTC)


def test_saved_filters_keep_only_filter_parameters() -> None:
    assert saved_filters({"q": "x", "kind": "thought", "cursor": "c", "run": ""}) == {
        "kind": "thought"
    }
