"""Refuse request addresses no view can handle: NUL or unreadable text.

A ``%00`` in a URL path or query reaches views as a NUL character, which
PostgreSQL refuses in every text comparison (a 500 wherever a path or query
value is looked up). This middleware answers 400 before any view runs: a JSON
error naming the parameter under ``/api/``, an HTML page elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from core.text import shorten, storable_problem
from evalsite.api import error_body


def request_address_problems(request: HttpRequest) -> dict[str, list[str]]:
    """``{"path" | <query parameter>: [reason]}`` for the request's address."""
    found: dict[str, list[str]] = {}
    problem = storable_problem(request.path_info)
    if problem is not None:
        found["path"] = [f"URL path {problem}"]
    for key, values in request.GET.lists():
        for text in (key, *values):
            problem = storable_problem(text)
            if problem is not None:
                found[shorten(key, 60)] = [f"query parameter {problem}"]
                break
    return found


class AddressGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problems = request_address_problems(request)
        if not problems:
            return self.get_response(request)
        if request.path_info.startswith("/api/"):
            body = error_body("invalid", "The request address is invalid.", problems)
            return JsonResponse(body, status=400)
        reason = next(iter(problems.values()))[0]
        return render(request, "400.html", {"reason": f"The {reason}."}, status=400)
