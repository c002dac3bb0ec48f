"""Cursors of keyset pages: where a page of a list ends or starts, written
into a URL as ``after`` or ``before`` and read back.

A keyset page is "the rows after (or before) this key, in the list's
order", so it costs the same on the last page as on the first and does not
shift when rows are added. A cursor holds the key of one row: a run's start
time and pk, a case's outcome and id. Pure: no Django.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime

# What a cursor may hold, part by part: the type each part is read back as.
Part = datetime | int | bool | str
Shape = tuple[type, ...]

NEWEST_FIRST: Shape = (datetime, int)
WORST_FIRST: Shape = (bool, str)

MAX_CURSOR_CHARS = 2_000


class CursorError(ValueError):
    """A cursor this site did not write (or one of another list)."""


def cursor_text(*parts: Part) -> str:
    """The cursor of a row's key, URL-safe and without padding."""
    wire = [part.isoformat() if isinstance(part, datetime) else part for part in parts]
    raw = json.dumps(wire, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def cursor_parts(text: str, shape: Shape) -> tuple[Part, ...]:
    """The key ``cursor_text`` wrote, each part of the type ``shape`` names;
    ``CursorError`` for anything else (a time without its zone included)."""
    if not text or len(text) > MAX_CURSOR_CHARS:
        raise CursorError("not a cursor of this list")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        wire = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise CursorError("not a cursor of this list") from error
    if not isinstance(wire, list) or len(wire) != len(shape):
        raise CursorError("not a cursor of this list")
    return tuple(_part(value, kind) for value, kind in zip(wire, shape, strict=True))


def _part(value: object, kind: type) -> Part:
    if kind is datetime:
        if not isinstance(value, str):
            raise CursorError("not a cursor of this list")
        try:
            when = datetime.fromisoformat(value)
        except ValueError as error:
            raise CursorError("not a cursor of this list") from error
        if when.tzinfo is None:
            raise CursorError("not a cursor of this list")
        return when
    # ``type(...) is``: a JSON true is no pk, and 1 is no outcome.
    if type(value) is not kind:
        raise CursorError("not a cursor of this list")
    assert isinstance(value, int | bool | str)
    return value
