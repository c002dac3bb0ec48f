"""What the reviews pages share: the refusal page for people who are not
staff, and how a service's refusal lands on a form's fields."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.errors import SchemaInvalid


def forbidden(request: HttpRequest, message: str) -> HttpResponse:
    """The 403 page: what the person may not do, in one sentence."""
    return render(request, "reviews/forbidden.html", {"message": message}, status=403)


def staff_only(message: str) -> Callable[[Any], Any]:
    """A page only staff may open; everyone else gets the 403 page."""

    def wrap(view: Any) -> Any:
        @wraps(view)
        def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_staff:
                return forbidden(request, message)
            return view(request, *args, **kwargs)

        return inner

    return wrap


def refusal_on_form(
    form: forms.Form, error: SchemaInvalid, aliases: dict[str, str] | None = None
) -> None:
    """Every problem of ``error`` shown on the form field it names (through
    ``aliases`` where the service's field has another name on the form), or
    above the form when the form has no such field."""
    aliases = aliases or {}
    problems = error.problems or []
    if not problems:
        form.add_error(None, error.message)
    for problem in problems:
        field = aliases.get(problem.path, problem.path)
        form.add_error(field if field in form.fields else None, problem.message)
