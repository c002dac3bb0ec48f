"""``POST /v1/traces``: OTLP/HTTP trace export, protobuf or JSON, gzip or not.

Authenticated by an agent's API key with the ``traces`` scope
(``Authorization: Bearer``; ``core.scopes``): 401 without a valid key, 403
for a key without the scope or one no agent holds. The body is read at most
to ``TRACE_MAX_BODY_BYTES`` (413 past it, inflated or not), typed
``application/x-protobuf`` or ``application/json`` (415 otherwise), and
decoded and stored by ``traces.services.ingest``.

Every answer is in the request's encoding, as OTLP/HTTP asks
(https://opentelemetry.io/docs/specs/otlp/#otlphttp-response): success is an
``ExportTraceServiceResponse`` (with ``partialSuccess`` when spans were
rejected), a refusal a ``google.rpc.Status`` (``traces.core.otlp_answer``),
JSON when the request's type was neither. (A body declared longer than
``REQUEST_MAX_BODY_BYTES`` is refused before any view, by
``evalsite.middleware.BodyLimitMiddleware``: a 413 page of its own.) The
endpoint speaks the OTLP protocol, not evalsite's REST conventions, so it
is left out of the OpenAPI schema (docs/traces.md describes it).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import ApiKeyAuthentication, request_key
from traces.core.otlp_answer import export_response, status_body
from traces.core.otlp_decode import (
    CONTENT_TYPES,
    ENCODING_JSON,
    BodyTooLarge,
    OtlpRefused,
    Undecodable,
    UnsupportedMedia,
    body_encoding,
)
from traces.services.ingest import otlp_ingest

logger = logging.getLogger(__name__)

REFUSAL_STATUS = {UnsupportedMedia: 415, BodyTooLarge: 413, Undecodable: 400}
# Answer headers a refusal keeps (the challenge of a 401, a 429's wait).
KEPT_HEADERS = ("WWW-Authenticate", "Retry-After")
NOT_AN_AGENT = "Only an agent's API key may send spans; this key belongs to no agent."


class NoAgent(exceptions.PermissionDenied):
    default_detail = NOT_AN_AGENT


def answer_encoding(request: Any) -> str:
    """The encoding of the answer: the request's, JSON when it had none."""
    try:
        return body_encoding(request.META.get("CONTENT_TYPE", ""))
    except UnsupportedMedia:
        return ENCODING_JSON


def otlp_answer(status: int, body: bytes, encoding: str) -> HttpResponse:
    return HttpResponse(body, status=status, content_type=CONTENT_TYPES[encoding])


def read_body(request: Request) -> bytes:
    """The body as sent, never more than ``TRACE_MAX_BODY_BYTES + 1`` bytes
    read (``BodyTooLarge`` past the limit, declared or read)."""
    limit = settings.TRACE_MAX_BODY_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        raise BodyTooLarge(
            f"The body is {declared} bytes; this server accepts at most {limit}."
        )
    stream = request.stream
    raw = stream.read(limit + 1) if stream is not None else b""
    if len(raw) > limit:
        raise BodyTooLarge(f"The body is longer than {limit} bytes, the most accepted.")
    return bytes(raw)


@extend_schema(exclude=True)
class OtlpTracesView(APIView):
    """OTLP/HTTP trace receiver (see the module docstring)."""

    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes: list[Any] = []

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[Any, str]:
        """Answers are OTLP messages in the request's encoding, whatever
        ``Accept`` says (exporters send ``application/x-protobuf``): DRF's
        renderer only carries a refusal's message to ``handle_exception``."""
        return JSONRenderer(), JSONRenderer.media_type

    def post(self, request: Request) -> HttpResponse:
        encoding = body_encoding(request.META.get("CONTENT_TYPE", ""))
        if request_key(request) is request.auth:
            raise NoAgent()
        body = read_body(request)
        result = otlp_ingest(
            body=body,
            encoding=encoding,
            content_encoding=request.META.get("HTTP_CONTENT_ENCODING", ""),
            agent_id=getattr(request.auth, "pk", None),
        )
        answer = export_response(
            rejected=result.rejected, reasons=result.reasons, encoding=encoding
        )
        return otlp_answer(200, answer, encoding)

    def handle_exception(self, exc: Exception) -> HttpResponse:
        """Every refusal as a ``google.rpc.Status`` in the request's encoding."""
        encoding = answer_encoding(self.request)
        if isinstance(exc, OtlpRefused):
            status = next(
                code for kind, code in REFUSAL_STATUS.items() if isinstance(exc, kind)
            )
            logger.info(
                "[Traces] otlp_refused status=%d reason=%s",
                status,
                type(exc).__name__,
            )
            return otlp_answer(
                status, status_body(status, exc.message, encoding), encoding
            )
        response = super().handle_exception(exc)
        message = _message(response)
        answer = otlp_answer(
            response.status_code,
            status_body(response.status_code, message, encoding),
            encoding,
        )
        for header in KEPT_HEADERS:
            if header in response:
                answer[header] = response[header]
        return answer


def _message(response: HttpResponse) -> str:
    data = getattr(response, "data", None) if isinstance(response, Response) else None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return str(data["error"].get("message", ""))
    return response.reason_phrase
