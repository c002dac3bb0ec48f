"""Opaque keyset cursors over (time, id): the text a page of rows hands out
to continue after its last row, and reading that text back.

Pure. A cursor is the URL-safe base64 (unpadded) of ``<time in UTC>|<id>``;
the caller checks a cursor's length and alphabet before decoding it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from datetime import UTC, datetime

# The largest id a signed 64-bit column holds.
MAX_ID = 2**63 - 1


def time_cursor_encode(moment: datetime, pk: int) -> str:
    """The cursor that continues after (``moment``, ``pk``)."""
    raw = f"{moment.astimezone(UTC).isoformat()}|{pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def time_cursor_decode(
    text: str, parse_time: Callable[[str], datetime]
) -> tuple[datetime, int]:
    """The (time, id) the cursor ``text`` holds, its time read by
    ``parse_time``; ``ValueError`` when it holds no id from 1 to ``MAX_ID``
    or is no base64 of text."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise ValueError(text) from None
    when, _, pk = raw.partition("|")
    if not pk.isdigit() or not 0 < int(pk) <= MAX_ID:
        raise ValueError(text)
    return parse_time(when), int(pk)
