"""How the score export is delivered to an OTLP/HTTP endpoint.

- which signal an endpoint takes: a URL path ending in ``/v1/traces``
  (Langfuse, Phoenix: backends that take traces only) gets the results as
  span events (``traces.core.otlp_export_spans``), any other the log-based
  events of the semantic conventions (``traces.core.otlp_export``);
- the ``OTLP_EXPORT_HEADERS`` format (OpenTelemetry's
  ``OTEL_EXPORTER_OTLP_HEADERS``: ``Name=value`` pairs, values
  percent-decoded);
- how an answer is taken, per OTLP/HTTP: 2xx is sent (a partial success
  says how many items the endpoint refused), 429, 502, 503 and 504 are
  worth retrying (``Retry-After`` in seconds is followed), every other
  status is final;
- the backoff between attempts: 5, 10, 20, ... seconds, at most 300.

Deterministic and without I/O: the caller reads the clock and the network.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)

from core.errors import CoreError
from core.header_list import HeaderListInvalid, parse_header_list

SIGNAL_LOGS: Final = "logs"
SIGNAL_TRACES: Final = "traces"

OUTCOME_SENT: Final = "sent"
OUTCOME_RETRY: Final = "retry"
OUTCOME_FAILED: Final = "failed"

RETRYABLE_STATUSES: Final = frozenset({429, 502, 503, 504})
BACKOFF_BASE_S: Final = 5.0
BACKOFF_MAX_S: Final = 300.0
MESSAGE_MAX: Final = 500


class ExportSettingInvalid(CoreError):
    """A setting of the export cannot be used; the message names the
    setting and the entry, never a value (headers hold credentials)."""

    code = "invalid_setting"


@dataclass(frozen=True, slots=True)
class EndpointAnswer:
    """How an endpoint's answer is taken: ``outcome`` is ``sent``,
    ``retry`` or ``failed``; ``error`` says why in words (for a ``sent``
    answer: the items the endpoint refused, if any)."""

    outcome: str
    error: str = ""
    retry_after_s: float | None = None
    rejected: int = 0


def signal_of(path: str) -> str:
    """``traces`` for an endpoint path ending in ``/v1/traces``, else
    ``logs``."""
    return SIGNAL_TRACES if path.rstrip("/").endswith("/v1/traces") else SIGNAL_LOGS


def parse_headers(text: str) -> tuple[tuple[str, str], ...]:
    """``OTLP_EXPORT_HEADERS`` (``Name=value,Name2=value2``, values
    percent-decoded) as pairs in order; ``ExportSettingInvalid`` naming the
    entry otherwise (the rules: ``core.header_list``, which the settings also
    use to refuse a bad value at start-up)."""
    try:
        return parse_header_list(text, setting="OTLP_EXPORT_HEADERS")
    except HeaderListInvalid as exc:
        raise ExportSettingInvalid(str(exc)) from None


def _retry_after_s(value: str | None) -> float | None:
    # Only the delta-seconds form: a date would need the clock.
    if value is None or not value.strip().isdigit():
        return None
    return float(value.strip())


def _rejected(signal: str, content_type: str, body: bytes) -> tuple[int, str]:
    """The partial success an OTLP answer reports; (0, "") when none or
    when the body cannot be read (the items were taken)."""
    if not body:
        return 0, ""
    try:
        if "json" in content_type:
            partial = json.loads(body).get("partialSuccess") or {}
            key = "rejectedSpans" if signal == SIGNAL_TRACES else "rejectedLogRecords"
            return int(partial.get(key) or 0), str(partial.get("errorMessage") or "")
        if signal == SIGNAL_TRACES:
            spans = ExportTraceServiceResponse.FromString(body).partial_success
            return int(spans.rejected_spans), spans.error_message
        logs = ExportLogsServiceResponse.FromString(body).partial_success
    except (DecodeError, ValueError, TypeError, AttributeError):
        return 0, ""
    return int(logs.rejected_log_records), logs.error_message


def _clip(text: str) -> str:
    return text if len(text) <= MESSAGE_MAX else text[: MESSAGE_MAX - 1] + "…"


def endpoint_answer(
    *,
    status: int,
    reason: str,
    content_type: str = "",
    body: bytes = b"",
    retry_after: str | None = None,
    signal: str = SIGNAL_LOGS,
) -> EndpointAnswer:
    """How the export takes the endpoint's HTTP answer (status, reason
    phrase, headers, body) to a request of ``signal``."""
    if 200 <= status < 300:
        rejected, message = _rejected(signal, content_type, body)
        if rejected:
            items = "spans" if signal == SIGNAL_TRACES else "events"
            error = f"the endpoint refused {rejected} {items}"
            return EndpointAnswer(
                OUTCOME_SENT,
                error=f"{error}: {_clip(message)}" if message else error,
                rejected=rejected,
            )
        return EndpointAnswer(OUTCOME_SENT)
    error = f"HTTP {status} {reason}".strip()
    if status in RETRYABLE_STATUSES:
        return EndpointAnswer(
            OUTCOME_RETRY, error=error, retry_after_s=_retry_after_s(retry_after)
        )
    return EndpointAnswer(OUTCOME_FAILED, error=error)


def retry_delay_s(attempt: int, *, retry_after_s: float | None = None) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1, 2, ...):
    5, 10, 20, ... up to 300, or the endpoint's ``Retry-After`` (also at
    most 300)."""
    if retry_after_s is not None:
        return min(max(retry_after_s, 0.0), BACKOFF_MAX_S)
    return min(BACKOFF_BASE_S * float(2 ** max(attempt - 1, 0)), BACKOFF_MAX_S)
