"""What the benchmark API's modules share: paging of list endpoints
(``limit``/``offset``, 400 with the field on a bad value), a query choice,
and absolute URLs."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from evalsite import paging

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
