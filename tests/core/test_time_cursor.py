"""Keyset cursors over (time, id): what is encoded reads back, in UTC, and
anything that is not such a cursor is a ``ValueError``."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.time_cursor import MAX_ID, time_cursor_decode, time_cursor_encode


def _raw(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_a_cursor_reads_back_its_time_in_utc_and_its_id() -> None:
    moment = datetime(
        2026, 3, 1, 14, 30, 5, 123456, tzinfo=timezone(timedelta(hours=2))
    )

    cursor = time_cursor_encode(moment, 42)

    assert "=" not in cursor
    assert time_cursor_decode(cursor, datetime.fromisoformat) == (
        datetime(2026, 3, 1, 12, 30, 5, 123456, tzinfo=UTC),
        42,
    )


def test_the_time_is_read_by_the_callers_parser() -> None:
    cursor = time_cursor_encode(datetime(2026, 3, 1, tzinfo=UTC), 7)
    seen = []

    def parse(text: str) -> datetime:
        seen.append(text)
        return datetime(2000, 1, 1, tzinfo=UTC)

    assert time_cursor_decode(cursor, parse) == (datetime(2000, 1, 1, tzinfo=UTC), 7)
    assert seen == ["2026-03-01T00:00:00+00:00"]


@pytest.mark.parametrize(
    "cursor",
    [
        _raw("2026-03-01T00:00:00+00:00|0"),
        _raw(f"2026-03-01T00:00:00+00:00|{MAX_ID + 1}"),
        _raw("2026-03-01T00:00:00+00:00|-3"),
        _raw("2026-03-01T00:00:00+00:00"),
        base64.urlsafe_b64encode(b"\xff\xfe|1").decode().rstrip("="),
        "a",
    ],
    ids=["id-zero", "id-too-large", "id-negative", "no-id", "not-text", "not-base64"],
)
def test_what_is_not_a_cursor_is_a_value_error(cursor: str) -> None:
    with pytest.raises(ValueError, match=re.escape(cursor)):
        time_cursor_decode(cursor, datetime.fromisoformat)


def test_the_largest_id_is_accepted() -> None:
    cursor = time_cursor_encode(datetime(2026, 3, 1, tzinfo=UTC), MAX_ID)

    assert time_cursor_decode(cursor, datetime.fromisoformat)[1] == MAX_ID
