"""404/500 handlers: JSON under /api/, HTML pages elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views import defaults

from evalsite.api import api_not_found, api_server_error


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith("/api/"):
        return api_not_found(request, exception)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        return api_server_error(request)
    return defaults.server_error(request)
