"""Request-level guards that apply to every page and API call.

- ``AddressGuardMiddleware`` refuses request addresses no view can handle:
  a ``%00`` in a URL path or query reaches views as a NUL character, which
  PostgreSQL refuses in every text comparison (a 500 wherever a path or query
  value is looked up). It answers 400 before any view runs: a JSON error
  naming the parameter under ``/api/``, an HTML page elsewhere.
- ``DatabaseUnavailableMiddleware`` answers 503 with Retry-After when the
  database connection is lost, never a 500.
- ``DatabaseDeadlineMiddleware`` bounds every wait on PostgreSQL
  (``evalsite.dbdeadline``): a server that stops answering costs a request
  a few seconds and a 503, not a hung worker.
- ``BodyLimitMiddleware`` answers 413 to a body declared longer than
  ``REQUEST_MAX_BODY_BYTES`` before anything reads it (no file is spooled,
  no form parsed, not even for the CSRF check).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.db.backends.signals import connection_created
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string

from core.text import shorten, storable_problem
from evalsite.api import RETRY_AFTER_S, database_unavailable_response, error_body
from evalsite.dbdeadline import STATEMENT_GRACE_S, deadline, statement_deadline

logger = logging.getLogger(__name__)


def request_address_problems(request: HttpRequest) -> dict[str, list[str]]:
    """``{"url:path" | "?<query parameter>": [reason]}`` for the request's
    address (the error contract's paths)."""
    found: dict[str, list[str]] = {}
    problem = storable_problem(request.path_info)
    if problem is not None:
        found["url:path"] = [f"URL path {problem}"]
    for key, values in request.GET.lists():
        for text in (key, *values):
            problem = storable_problem(text)
            if problem is not None:
                found["?" + shorten(key, 60)] = [f"query parameter {problem}"]
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


class DatabaseUnavailableMiddleware:
    """A lost database answers 503 with Retry-After, never a 500.

    A connection error is the service being unavailable, not a bug: the
    API answers the usual error body with code ``unavailable``, pages a
    short HTML page. Query errors (programming errors) are left alone.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(
        self, request: HttpRequest, exception: Exception
    ) -> HttpResponse | None:
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.warning("[Ops] request_refused reason=database_unavailable")
        if request.path.startswith("/api/"):
            return database_unavailable_response()
        response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response


# Read by views that bound their own body (OTLP ingestion).
OTLP_PATHS = ("/v1/",)


class BodyLimitMiddleware:
    """Refuse a request whose ``Content-Length`` is over
    ``REQUEST_MAX_BODY_BYTES`` before its body is read: 413, the API's JSON
    error body under ``/api/``, a short page elsewhere. A body sent without a
    length is never read by Django (the reverse proxy caps those too). OTLP
    ingestion (``/v1/traces``) has a limit of its own (``TRACE_MAX_BODY_BYTES``),
    which its view enforces and answers in OTLP's form; this one lets a body
    up to that limit through."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        limit = settings.REQUEST_MAX_BODY_BYTES
        if request.path_info.startswith(OTLP_PATHS):
            limit = max(limit, settings.TRACE_MAX_BODY_BYTES)
        if declared <= limit:
            return self.get_response(request)
        logger.warning(
            "[Ops] request_refused reason=body_too_large bytes=%d limit=%d",
            declared,
            limit,
        )
        message = (
            f"The request body is {declared} bytes; this server accepts at most "
            f"{limit}."
        )
        if request.path_info.startswith("/api/"):
            body = error_body(
                "too_large", message, {"header:Content-Length": [message]}
            )
            return JsonResponse(body, status=413)
        return render(request, "413.html", {"reason": message}, status=413)


def limit_statements(sender: Any, connection: Any, **kwargs: Any) -> None:
    """A new PostgreSQL connection of a web process: the server cancels any
    statement past ``DB_STATEMENT_TIMEOUT_S`` (``statement_timeout``)."""
    seconds = settings.DB_STATEMENT_TIMEOUT_S
    if connection.vendor != "postgresql" or not seconds:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('statement_timeout', %s, false)", [f"{seconds}s"]
        )


class DatabaseDeadlineMiddleware:
    """On PostgreSQL: check a kept connection within ``DB_CONNECT_TIMEOUT_S``
    (a server that does not answer gets the connection closed, and the
    reconnect gives up after the same time), and give every statement of
    the request ``DB_STATEMENT_TIMEOUT_S`` plus a grace before its
    connection is cut. Either way the request answers 503."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        # Web processes only: a worker's task or a migration may run longer.
        connection_created.connect(
            limit_statements, dispatch_uid="evalsite.statement_timeout"
        )

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if connection.vendor != "postgresql":
            return self.get_response(request)
        if connection.connection is not None:
            with deadline(connection, settings.DB_CONNECT_TIMEOUT_S, "health_check"):
                connection.close_if_health_check_failed()
        seconds = settings.DB_STATEMENT_TIMEOUT_S
        wrapper = statement_deadline(seconds + STATEMENT_GRACE_S if seconds else 0)
        with connection.execute_wrapper(wrapper):
            return self.get_response(request)
