"""core.times: instants as whole milliseconds since the Unix epoch."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from core.times import epoch_ms, epoch_ms_or_none


def test_epoch_ms_counts_whole_milliseconds_since_the_epoch() -> None:
    assert epoch_ms(datetime(1970, 1, 1, tzinfo=UTC)) == 0
    assert epoch_ms(datetime(2026, 2, 3, 12, 0, 0, 123_456, tzinfo=UTC)) == (
        1_770_120_000_123
    )


def test_epoch_ms_is_the_same_instant_in_any_time_zone() -> None:
    utc = datetime(2026, 2, 3, 12, 0, tzinfo=UTC)
    paris = utc.astimezone(timezone(timedelta(hours=1)))
    assert epoch_ms(paris) == epoch_ms(utc)


def test_epoch_ms_or_none_passes_none_through() -> None:
    assert epoch_ms_or_none(None) is None
    assert epoch_ms_or_none(datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)) == 1000
