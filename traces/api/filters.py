"""What a span list request asks for, read from its query string.

Every bad value is reported at once, as a 400 naming the parameter
(``?since``) and why. The list is paged by a keyset, not an offset: the
spans table is the largest evalsite keeps, and ``OFFSET 100000`` would read
every row it skips. The order is ``-started_at, -id`` and ``cursor`` is the
last item's (time, id), opaque to the client.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db.models import Q, QuerySet
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from core.time_cursor import time_cursor_decode, time_cursor_encode
from evalsite import paging
from evalsite.openapi import EMPTY_IS_ABSENT
from traces.core.records import SOURCES, STATUSES
from traces.models import Span
from traces.selectors import of_agent_named

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
MAX_ID = 2**63 - 1
TRACE_ID = re.compile(r"^[0-9a-fA-F]{32}$")
TRACE_ID_PATTERN = TRACE_ID.pattern
# The longest value each text filter can match (the column's length).
TEXT_FILTERS = {"agent": 64, "run": 200, "case": 300, "model": 200}
MAX_CURSOR_CHARS = 200
CURSOR_PATTERN = r"^[A-Za-z0-9_-]+$"


@dataclass(frozen=True, slots=True)
class SpanQuery:
    """A list request's filters (None: not asked), page size and cursor."""

    agent: str | None = None
    run: str | None = None
    case: str | None = None
    thought: int | None = None
    model: str | None = None
    source: str | None = None
    status: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    trace: str | None = None
    limit: int = DEFAULT_LIMIT
    after: tuple[datetime, int] | None = None


def _text(name: str, maximum: int, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        {"type": "string", "minLength": 1, "maxLength": maximum},
        description=description,
        extensions=EMPTY_IS_ABSENT,
    )


def _time(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        {"type": "string", "format": "date-time"},
        description=description,
        extensions=EMPTY_IS_ABSENT,
    )


SPAN_FILTERS = [
    _text("agent", TEXT_FILTERS["agent"], "the agent's name"),
    _text("run", TEXT_FILTERS["run"], "an eval run's id"),
    _text("case", TEXT_FILTERS["case"], "a scenario result's case id"),
    OpenApiParameter(
        "thought",
        {"type": "integer", "minimum": 1, "maximum": MAX_ID},
        description="a thought's id",
        extensions=EMPTY_IS_ABSENT,
    ),
    _text("model", TEXT_FILTERS["model"], "the request or the response model"),
    OpenApiParameter("source", str, enum=list(SOURCES), extensions=EMPTY_IS_ABSENT),
    OpenApiParameter("status", str, enum=list(STATUSES), extensions=EMPTY_IS_ABSENT),
    _time("since", "spans started at or after this time (RFC 3339, with a zone)"),
    _time("until", "spans started before this time (RFC 3339, with a zone)"),
    OpenApiParameter(
        "trace",
        {"type": "string", "pattern": TRACE_ID_PATTERN},
        description="a trace id: 32 hex digits",
        extensions=EMPTY_IS_ABSENT,
    ),
    paging.limit_parameter(default=DEFAULT_LIMIT, maximum=MAX_LIMIT),
    OpenApiParameter(
        "cursor",
        {"type": "string", "pattern": CURSOR_PATTERN, "maxLength": MAX_CURSOR_CHARS},
        description="the nextCursor of the previous page (any other value is "
        "refused with a 400 naming cursor)",
        extensions=EMPTY_IS_ABSENT,
    ),
]


def cursor_encode(started_at: datetime, pk: int) -> str:
    """The opaque cursor that continues after the span (``started_at``, ``pk``)."""
    return time_cursor_encode(started_at, pk)


def cursor_decode(text: str) -> tuple[datetime, int]:
    """The (time, id) a cursor holds; ``ValueError`` if it is not one this
    API gave out."""
    if len(text) > MAX_CURSOR_CHARS or not re.match(CURSOR_PATTERN, text):
        raise ValueError(text)
    return time_cursor_decode(text, parse_time)


def parse_time(text: str) -> datetime:
    """An RFC 3339 time with its zone, in UTC; ``ValueError`` otherwise.
    A time whose UTC reading falls outside the calendar is its nearest end."""
    value = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError("no time zone")
    try:
        return value.astimezone(UTC)
    except OverflowError:
        if value.year == 1:
            return datetime.min.replace(tzinfo=UTC)
        return datetime.max.replace(tzinfo=UTC)


def span_query(request: Request) -> SpanQuery:
    """The request's ``SpanQuery``; a 400 naming every bad parameter."""
    params = request.query_params
    found: dict[str, Any] = {}
    problems: dict[str, list[str]] = {}
    for name, maximum in TEXT_FILTERS.items():
        value = params.get(name) or None
        if value is not None and len(value) > maximum:
            problems[name] = [f"{name} must be at most {maximum} characters."]
        found[name] = value
    thought = params.get("thought") or None
    if thought is not None:
        if not thought.isdigit() or not 0 < int(thought) <= MAX_ID:
            problems["thought"] = ["thought must be a thought id (a positive integer)."]
        else:
            found["thought"] = int(thought)
    for name, choices in (("source", SOURCES), ("status", STATUSES)):
        value = params.get(name) or None
        if value is not None and value not in choices:
            problems[name] = [f"{name} must be one of {', '.join(choices)}."]
        found[name] = value
    for name in ("since", "until"):
        value = params.get(name) or None
        if value is None:
            continue
        try:
            found[name] = parse_time(value)
        except ValueError:
            problems[name] = [
                f"{name} must be an RFC 3339 time with a zone (2026-03-06T12:00:00Z)."
            ]
    trace = params.get("trace") or None
    if trace is not None:
        if TRACE_ID.match(trace) is None:
            problems["trace"] = ["trace must be a trace id: 32 hex digits."]
        else:
            found["trace"] = trace.lower()
    limit = params.get("limit") or None
    if limit is not None:
        if not re.fullmatch(r"-?[0-9]+", limit):
            problems["limit"] = ["limit must be an integer."]
        elif not 1 <= int(limit) <= MAX_LIMIT:
            problems["limit"] = [f"limit must be between 1 and {MAX_LIMIT}."]
        else:
            found["limit"] = int(limit)
    cursor = params.get("cursor") or None
    if cursor is not None:
        try:
            found["after"] = cursor_decode(cursor)
        except ValueError:
            problems["cursor"] = ["cursor must be a nextCursor this API gave out."]
    if problems:
        raise ValidationError(problems)
    return SpanQuery(**found)


def spans_matching(spans: QuerySet[Span], query: SpanQuery) -> QuerySet[Span]:
    """``spans`` narrowed to ``query``'s filters, after its cursor, in the
    list's order (newest first)."""
    if query.agent is not None:
        spans = of_agent_named(spans, query.agent)
    exact = {
        "run_ref": query.run,
        "case_ref": query.case,
        "thought_ref": query.thought,
        "source": query.source,
        "status": query.status,
        "trace_id": query.trace,
        "started_at__gte": query.since,
        "started_at__lt": query.until,
    }
    spans = spans.filter(**{k: v for k, v in exact.items() if v is not None})
    if query.model is not None:
        spans = spans.filter(
            Q(request_model=query.model) | Q(response_model=query.model)
        )
    if query.after is not None:
        started_at, pk = query.after
        spans = spans.filter(
            Q(started_at__lt=started_at) | Q(started_at=started_at, pk__lt=pk)
        )
    return spans.order_by("-started_at", "-pk")
