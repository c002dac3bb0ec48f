"""What the benchmark API's modules share: paging of list endpoints
(``limit``/``offset``, and the keyset ``after`` of the long lists; 400 with
the field on a bad value), a query choice, and absolute URLs."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from evals.selectors.keyset_pages import beyond
from evalsite import paging
from evalsite.openapi import EMPTY_IS_ABSENT

MAX_LIMIT = 200


DEFAULT_LIMIT = 50


TRUE_VALUES = ("1", "true", "on", "yes")


PAGING = paging.page_parameters(default=DEFAULT_LIMIT, maximum=MAX_LIMIT)


def limit_offset(request: Request) -> tuple[int, int]:
    """``limit`` (1..MAX_LIMIT, default DEFAULT_LIMIT) and ``offset``."""
    return paging.limit_offset(request, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)


def page_of(request: Request, queryset: Any) -> tuple[int, list[Any]]:
    """The total and the requested page of ``queryset``."""
    limit, offset = limit_offset(request)
    return queryset.count(), list(queryset[offset : offset + limit])


def query_choice(request: Request, name: str, choices: list[str]) -> str | None:
    value = request.query_params.get(name) or None
    if value is not None and value not in choices:
        raise ValidationError({name: [f"{name} must be one of {'|'.join(choices)}."]})
    return value


def absolute_url(request: Request, url: str) -> str:
    return request.build_absolute_uri(url)


# --- keyset paging of the run list ------------------------------------------------

AFTER = OpenApiParameter(
    "after",
    str,
    description=(
        "the ``next`` of the previous page: the page after it, newest first "
        "(keyset paging, as fast on the last page as on the first; ``offset`` "
        "is then counted from there)"
    ),
    extensions=EMPTY_IS_ABSENT,
)


def run_cursor_text(started_at: datetime, pk: int) -> str:
    """Where a page of runs (newest first) ends, as ``after`` reads it."""
    raw = json.dumps([started_at.isoformat(), pk]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def run_cursor(request: Request) -> tuple[datetime, int] | None:
    """The ``after`` of a run list request (None when absent); a 400 naming
    ``after`` for a value no page gave."""
    text = request.query_params.get("after") or ""
    if not text:
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        started, pk = json.loads(raw)
        when = datetime.fromisoformat(started)
        if type(pk) is not int or when.tzinfo is None:
            raise ValueError(text)
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise ValidationError(
            {"after": ["after is not the next of a page of this list."]}
        ) from error
    return when, pk


def keyset_page_of(
    request: Request, queryset: Any, *, time_field: str = "started_at"
) -> tuple[int, list[Any], str | None]:
    """The total, the requested page of ``queryset`` (newest first by
    ``time_field``, then pk) and the ``after`` of the page below it (None on
    the last). With ``after``, the page starts below that row and
    ``offset`` counts from there. Every bad parameter is named at once."""
    problems: dict[str, Any] = {}
    limit, offset, after = DEFAULT_LIMIT, 0, None
    try:
        limit, offset = limit_offset(request)
    except ValidationError as error:
        problems.update(error.detail if isinstance(error.detail, dict) else {})
    try:
        after = run_cursor(request)
    except ValidationError as error:
        problems.update(error.detail if isinstance(error.detail, dict) else {})
    if problems:
        raise ValidationError(problems)
    count = queryset.count()
    rows = queryset.order_by(f"-{time_field}", "-pk")
    if after is not None:
        when, pk = after
        rows = beyond(rows, time_field, when, pk, newer=False)
    page = list(rows[offset : offset + limit + 1])
    more = len(page) > limit
    page = page[:limit]
    last = page[-1] if page else None
    following = (
        run_cursor_text(getattr(last, time_field), last.pk)
        if more and last is not None
        else None
    )
    return count, page, following
