"""What the benchmark API's modules share: paging of list endpoints
(``limit``/``offset``, 400 with the field on a bad value), a query choice,
absolute URLs, and the schema of a page and of a seed document."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

MAX_LIMIT = 200


DEFAULT_LIMIT = 50


TRUE_VALUES = ("1", "true", "on", "yes")


ListSerializer = inline_serializer(
    "BenchmarkPage",
    {"count": serializers.IntegerField(), "results": serializers.ListField()},
)


DocumentSerializer = inline_serializer(
    "SeedDocument", {"schemaVersion": serializers.IntegerField()}
)


PAGING = [OpenApiParameter("limit", int), OpenApiParameter("offset", int)]


def limit_offset(request: Request) -> tuple[int, int]:
    """``limit`` (1..MAX_LIMIT, default DEFAULT_LIMIT) and ``offset`` of a
    list request; a 400 naming the parameter when either is not a number in
    range."""
    values: dict[str, int] = {}
    for name, default, low, high in (
        ("limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
        ("offset", 0, 0, 10**9),
    ):
        raw = request.query_params.get(name) or ""
        try:
            value = int(raw) if raw else default
        except ValueError:
            raise ValidationError({name: [f"{name} must be an integer."]}) from None
        if not low <= value <= high:
            raise ValidationError({name: [f"{name} must be between {low} and {high}."]})
        values[name] = value
    return values["limit"], values["offset"]


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
