"""One place that turns errors into API error bodies.

Every error answer has the shape
``{"error": {"code", "message", "fields": [{"path", "message"}]}}``: ``fields``
lists every problem found at once (empty when the error is not about a
field), each with a JSONPath into the request body (``$.thoughts[1].type``),
``?name`` for a query parameter or ``header:Name`` for a header. Views never
catch domain errors themselves; a serializer's ``validate_<field>`` reports a
core's ``SchemaInvalid`` through ``core_field`` so it joins the other fields'
problems instead of ending validation early.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import (
    Conflict,
    CoreError,
    Forbidden,
    NotFound,
    SchemaInvalid,
    SchemaProblem,
    ServiceUnavailable,
    error_document,
)
from core.text import shorten
from evalsite.paths import scrubbed

logger = logging.getLogger(__name__)


CORE_STATUS = {
    SchemaInvalid: status.HTTP_400_BAD_REQUEST,
    NotFound: status.HTTP_404_NOT_FOUND,
    Conflict: status.HTTP_409_CONFLICT,
    Forbidden: status.HTTP_403_FORBIDDEN,
    ServiceUnavailable: status.HTTP_503_SERVICE_UNAVAILABLE,
}
# Seconds a client should wait before retrying a 503.
RETRY_AFTER_S = 5
DATABASE_UNAVAILABLE = (
    "The database is not available right now; nothing was changed. "
    "Retry in a few seconds."
)


MAX_ECHO_CHARS = 300
MAX_ECHO_ITEMS = 100


def bounded(value: Any) -> Any:
    """``value`` with every string cut to ``MAX_ECHO_CHARS`` (lone surrogates
    escaped) and every list or mapping to ``MAX_ECHO_ITEMS`` entries: an
    error answer never echoes a whole hostile request back."""
    if isinstance(value, str):
        return shorten(value, MAX_ECHO_CHARS)
    if isinstance(value, dict):
        items = list(value.items())
        out = {
            shorten(str(k), MAX_ECHO_CHARS): bounded(v)
            for k, v in items[:MAX_ECHO_ITEMS]
        }
        if len(items) > MAX_ECHO_ITEMS:
            out["..."] = [f"{len(items) - MAX_ECHO_ITEMS} more not shown"]
        return out
    if isinstance(value, (list, tuple)):
        shown = [bounded(v) for v in value[:MAX_ECHO_ITEMS]]
        if len(value) > MAX_ECHO_ITEMS:
            shown.append(f"... {len(value) - MAX_ECHO_ITEMS} more not shown")
        return shown
    return value


def error_body(
    code: str,
    message: str,
    fields: Mapping[str, Sequence[str]] | Iterable[SchemaProblem] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The contract body (``core.errors.error_document``) with server paths
    shown relative to the configured directories, cut for echo safety: at
    most ``MAX_ECHO_ITEMS`` field problems (a last entry says how many more
    there were), every string at most ``MAX_ECHO_CHARS``."""
    document = scrubbed(error_document(code, message, fields, **extra)["error"])
    problems = document.pop("fields")
    shown = [bounded(p) for p in problems[:MAX_ECHO_ITEMS]]
    if len(problems) > MAX_ECHO_ITEMS:
        shown.append(
            {
                "path": "$",
                "message": f"{len(problems) - MAX_ECHO_ITEMS} more problems not shown",
            }
        )
    body = bounded(document)
    body["fields"] = shown
    return {"error": body}


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail -> {"a.b[0].c": ["reason", ...]}."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
                path = f"{prefix}[{key}]"
            elif key in ("non_field_errors", "__all__"):
                path = prefix
            else:
                path = f"{prefix}.{key}" if prefix else str(key)
            for k, v in _flatten(value, path).items():
                out.setdefault(k, []).extend(v)
    elif isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            out[prefix] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                for k, v in _flatten(item, f"{prefix}[{index}]").items():
                    out.setdefault(k, []).extend(v)
    else:
        out[prefix] = [str(detail)]
    return out


def _query_keys(problems: dict[str, list[str]]) -> dict[str, list[str]]:
    # A GET carries no body: what it validates are query parameters.
    return {f"?{key}" if key else "$": value for key, value in problems.items()}


def _validation_message(problems: dict[str, list[str]]) -> str:
    count = sum(len(v) for v in problems.values())
    if count == 1:
        return "Invalid input: 1 problem."
    return f"Invalid input: {count} problems."


def _core_error_response(exc: CoreError) -> Response:
    http_status = next(
        (code for cls, code in CORE_STATUS.items() if isinstance(exc, cls)),
        status.HTTP_400_BAD_REQUEST,
    )
    problems = exc.problems if isinstance(exc, SchemaInvalid) else ()
    extra = {k: v for k, v in exc.details.items() if k != "problems"}
    response = Response(
        error_body(exc.code, exc.message, problems, **extra), http_status
    )
    if http_status == status.HTTP_503_SERVICE_UNAVAILABLE:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def too_many_parts_body(exc: Exception) -> dict[str, Any]:
    """The error body for a form with more fields or files than Django reads
    (``DATA_UPLOAD_MAX_NUMBER_FIELDS``, ``DATA_UPLOAD_MAX_NUMBER_FILES``)."""
    from django.conf import settings

    if isinstance(exc, TooManyFilesSent):
        message = (
            f"The form has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files."
        )
    else:
        message = (
            f"The form has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields."
        )
    return error_body("too_many_parts", message, {"$": [message]})


def database_unavailable_response() -> JsonResponse:
    response = JsonResponse(
        error_body("unavailable", DATABASE_UNAVAILABLE),
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
    )
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, CoreError):
        return _core_error_response(exc)
    if isinstance(exc, DataError):
        # The last line of defence: a value the database refused (too long
        # for its column, or not storable) that no validator caught.
        logger.warning("[API] database_refused_value error=%s", shorten(str(exc)))
        return Response(
            error_body(
                "invalid",
                "A value is too long or cannot be stored; shorten the text fields.",
            ),
            status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, (OperationalError, InterfaceError)):
        # The database went away (a connection error, not a bad query: those
        # are programming errors and stay 500s).
        logger.warning("[Ops] request_refused reason=database_unavailable")
        return _core_error_response(ServiceUnavailable(DATABASE_UNAVAILABLE))
    if isinstance(exc, RequestDataTooBig):
        return Response(
            error_body("too_large", "Request body exceeds the size limit."),
            status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, (TooManyFieldsSent, TooManyFilesSent)):
        return Response(too_many_parts_body(exc), status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    elif isinstance(exc, (Http404, OverflowError)):
        # OverflowError: an id past 64 bits in the URL (SQLite refuses to
        # bind it); no object has such an id.
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        problems = _flatten(exc.detail)
        request = context.get("request")
        if request is not None and request.method in ("GET", "HEAD"):
            problems = _query_keys(problems)
        response.data = error_body("invalid", _validation_message(problems), problems)
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        message = (
            str(detail) if not isinstance(detail, (dict, list)) else exc.default_detail
        )
        response.data = error_body(
            exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code,
            str(message),
        )
    return response


def api_not_found(request: Any, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("not_found", "No such API endpoint."), status=404)


def api_server_error(request: Any) -> JsonResponse:
    return JsonResponse(
        error_body("server_error", "Internal server error; it has been logged."),
        status=500,
    )


def core_field[T](check: Callable[[], T]) -> T:
    """Run a core or service check inside a serializer's ``validate_<field>``:
    its ``SchemaInvalid`` becomes that field's errors, so DRF goes on and the
    answer lists this problem with every other field's."""
    try:
        return check()
    except SchemaInvalid as exc:
        messages = [p.message for p in exc.problems] or [exc.message]
        raise serializers.ValidationError(messages) from None
