"""400/404/500 handlers: JSON under /api/, HTML pages elsewhere."""

from __future__ import annotations

from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from evalsite.api import (
    api_not_found,
    api_server_error,
    error_body,
    too_many_parts_body,
)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refused before any view answered (a form with too
    many fields or files, a suspicious request)."""
    if request.path.startswith("/api/"):
        if isinstance(exception, (TooManyFieldsSent, TooManyFilesSent)):
            body = too_many_parts_body(exception)
        else:
            body = error_body("invalid", "The request cannot be read.")
        return JsonResponse(body, status=400)
    return defaults.bad_request(request, exception)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith("/api/"):
        return api_not_found(request, exception)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        return api_server_error(request)
    return defaults.server_error(request)
