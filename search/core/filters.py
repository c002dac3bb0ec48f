"""The filters of a search request and its paging cursor, read from plain
strings (query parameters or a saved search) with a reason for each bad one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from core.time_cursor import time_cursor_decode, time_cursor_encode

KINDS = (
    "thought",
    "scenario_output",
    "completion",
    "review_comment",
    "keepalive_line",
)
MAX_TEXT = 200
MAX_LIMIT = 100
DEFAULT_LIMIT = 20
FLAG_PATTERN = r"^[A-Za-z0-9:_-]{1,60}$"
_FLAG = re.compile(FLAG_PATTERN)
_CURSOR = re.compile(r"^[A-Za-z0-9_-]{1,120}$")
# The parameters a saved search keeps (not q, cursor or limit).
FILTER_NAMES = (
    "agent",
    "run",
    "suite",
    "kind",
    "since",
    "until",
    "eligible",
    "flag",
    "score",
    "score_min",
    "score_max",
)


@dataclass(frozen=True, slots=True)
class Filters:
    agent: str | None = None
    run: str | None = None
    suite: str | None = None
    kind: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    eligible: bool | None = None
    flag: str | None = None
    score: str | None = None
    score_min: float | None = None
    score_max: float | None = None
    limit: int = DEFAULT_LIMIT
    after: tuple[datetime, int] | None = None
    problems: dict[str, str] = field(default_factory=dict)


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (a date alone is its midnight), UTC when it names no
    zone; ``ValueError`` otherwise."""
    value = datetime.fromisoformat(text.strip().upper().replace("Z", "+00:00"))
    value = value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError(text) from None


def _number(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(text)
    return value


def parse_filters(params: Mapping[str, str]) -> Filters:
    """The ``Filters`` of ``params``; each bad parameter is in ``problems``
    with its reason (an empty value is absent)."""
    found: dict[str, object] = {}
    problems: dict[str, str] = {}
    for name in ("agent", "run", "suite", "score"):
        value = (params.get(name) or "").strip()
        if len(value) > MAX_TEXT or "\x00" in value:
            problems[name] = f"{name} must be at most {MAX_TEXT} characters."
        elif value:
            found[name] = value
    kind = params.get("kind") or ""
    if kind:
        if kind in KINDS:
            found["kind"] = kind
        else:
            problems["kind"] = f"kind must be one of {', '.join(KINDS)}."
    for name in ("since", "until"):
        value = params.get(name) or ""
        if not value:
            continue
        try:
            found[name] = parse_time(value)
        except ValueError:
            problems[name] = f"{name} must be a date or time (2026-03-06T12:00:00Z)."
    eligible = params.get("eligible") or ""
    if eligible:
        if eligible == "true":
            found["eligible"] = True
        elif eligible == "false":
            found["eligible"] = False
        else:
            problems["eligible"] = "eligible must be true or false."
    flag = params.get("flag") or ""
    if flag:
        if _FLAG.match(flag):
            found["flag"] = flag.lower()
        else:
            problems["flag"] = "flag must be one word (letters, digits, - : _)."
    for name in ("score_min", "score_max"):
        value = params.get(name) or ""
        if not value:
            continue
        try:
            found[name] = _number(value)
        except ValueError:
            problems[name] = f"{name} must be a number."
    bounded = "score_min" in found or "score_max" in found
    if bounded and "score" not in found and "score" not in problems:
        # A bound alone would match a score under any configuration.
        problems["score"] = (
            "score must name the score the range is for (each score "
            "configuration has its own scale)."
        )
    limit = params.get("limit") or ""
    if limit:
        if not re.fullmatch(r"[0-9]{1,4}", limit) or not 1 <= int(limit) <= MAX_LIMIT:
            problems["limit"] = f"limit must be an integer from 1 to {MAX_LIMIT}."
        else:
            found["limit"] = int(limit)
    cursor = params.get("cursor") or ""
    if cursor:
        try:
            found["after"] = cursor_decode(cursor)
        except ValueError:
            problems["cursor"] = "cursor must be a nextCursor this API gave out."
    return Filters(**found, problems=problems)  # type: ignore[arg-type]


def saved_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The filter parameters a saved search keeps (non-empty ones)."""
    return {n: str(params[n]) for n in FILTER_NAMES if params.get(n)}


def cursor_encode(created_at: datetime, pk: int) -> str:
    """The opaque cursor that continues after (``created_at``, ``pk``)."""
    return time_cursor_encode(created_at, pk)


def cursor_decode(text: str) -> tuple[datetime, int]:
    """The (time, id) a cursor holds; ``ValueError`` if it is not a cursor."""
    if not _CURSOR.match(text):
        raise ValueError(text)
    return time_cursor_decode(text, parse_time)
