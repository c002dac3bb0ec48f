"""``limit`` and ``offset`` of a list request, read the same way by every
app's API: a 400 naming every parameter that is not a number in range; and
the same parameters as the API schema states them, with their bounds."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from evalsite.openapi import EMPTY_IS_ABSENT

MAX_OFFSET = 10**9


def limit_parameter(*, default: int, maximum: int) -> OpenApiParameter:
    """``limit`` in the schema: an integer 1..``maximum``, ``default`` when absent."""
    return OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": maximum, "default": default},
        extensions=EMPTY_IS_ABSENT,
    )


def page_parameters(*, default: int, maximum: int) -> list[OpenApiParameter]:
    """``limit`` and ``offset`` in the schema, as ``limit_offset`` reads them."""
    offset = {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0}
    return [
        limit_parameter(default=default, maximum=maximum),
        OpenApiParameter("offset", offset, extensions=EMPTY_IS_ABSENT),
    ]


def limit_offset(request: Request, *, default: int, maximum: int) -> tuple[int, int]:
    """``limit`` (1..``maximum``, default ``default``) and ``offset`` (>= 0)."""
    values: dict[str, int] = {}
    problems: dict[str, list[str]] = {}
    for name, fallback, low, high in (
        ("limit", default, 1, maximum),
        ("offset", 0, 0, MAX_OFFSET),
    ):
        raw = request.query_params.get(name) or ""
        try:
            value = int(raw) if raw else fallback
        except ValueError:
            problems[name] = [f"{name} must be an integer."]
            continue
        if not low <= value <= high:
            problems[name] = [f"{name} must be between {low} and {high}."]
        values[name] = value
    if problems:
        raise ValidationError(problems)
    return values["limit"], values["offset"]
