"""Keyset cursors: a key written is the key read back, of the shape asked
for; anything else is a ``CursorError``."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import pytest

from evals.core.keyset import (
    MAX_CURSOR_CHARS,
    NEWEST_FIRST,
    WORST_FIRST,
    CursorError,
    cursor_parts,
    cursor_text,
)

WHEN = datetime(2026, 3, 1, 12, 30, 5, 123456, tzinfo=UTC)


def wire(value: object) -> str:
    raw = json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_a_newest_first_key_round_trips() -> None:
    text = cursor_text(WHEN, 42)

    assert cursor_parts(text, NEWEST_FIRST) == (WHEN, 42)
    assert "=" not in text and "/" not in text and "+" not in text


def test_a_worst_first_key_round_trips() -> None:
    assert cursor_parts(cursor_text(False, "case/ü 1"), WORST_FIRST) == (
        False,
        "case/ü 1",
    )
    assert cursor_parts(cursor_text(True, ""), WORST_FIRST) == (True, "")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "%%%",
        "bm90IGpzb24",  # "not json"
        wire({"a": 1}),
        wire([WHEN.isoformat()]),
        wire([WHEN.isoformat(), 1, 2]),
        wire(["yesterday", 1]),
        wire(["2026-03-01T12:00:00", 1]),  # no zone
        wire([WHEN.isoformat(), True]),  # a boolean is no pk
        wire([WHEN.isoformat(), "1"]),
        wire([1, 1]),
        "A" * (MAX_CURSOR_CHARS + 1),
    ],
)
def test_anything_not_written_as_a_newest_first_key_is_refused(text: str) -> None:
    with pytest.raises(CursorError):
        cursor_parts(text, NEWEST_FIRST)


@pytest.mark.parametrize(
    "value", [[1, "a"], [0, "a"], [False, 3], ["false", "a"], [None, "a"]]
)
def test_a_worst_first_key_needs_a_true_boolean_and_a_text(value: object) -> None:
    with pytest.raises(CursorError):
        cursor_parts(wire(value), WORST_FIRST)


def test_a_key_of_one_list_is_not_read_as_another() -> None:
    with pytest.raises(CursorError):
        cursor_parts(cursor_text(WHEN, 3), WORST_FIRST)
