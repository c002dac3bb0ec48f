"""``limit`` and ``offset`` of a list request, read the same way by every
app's API: a 400 naming every parameter that is not a number in range."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.request import Request


def limit_offset(request: Request, *, default: int, maximum: int) -> tuple[int, int]:
    """``limit`` (1..``maximum``, default ``default``) and ``offset`` (>= 0)."""
    values: dict[str, int] = {}
    problems: dict[str, list[str]] = {}
    for name, fallback, low, high in (
        ("limit", default, 1, maximum),
        ("offset", 0, 0, 10**9),
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
