"""Instants as the contracts write them: milliseconds since the Unix epoch.

Pure. The stream's rules (``stream/core``) take times as integer
milliseconds; the services convert the database's aware datetimes here.
"""

from __future__ import annotations

from datetime import datetime


def epoch_ms(moment: datetime) -> int:
    """``moment`` (timezone-aware) as whole milliseconds since the epoch."""
    return int(moment.timestamp() * 1000)


def epoch_ms_or_none(moment: datetime | None) -> int | None:
    return None if moment is None else epoch_ms(moment)
