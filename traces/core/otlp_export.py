"""A finished run's scores as OTLP ``gen_ai.evaluation.result`` events.

What goes out (the OpenTelemetry GenAI semantic conventions' evaluation
event, carried as OTLP log records with ``event_name`` set):

- ``evalsite.pass_rate``: passed / total cases, with "17 of 20 cases passed";
- ``evalsite.verdict``: 1.0 or 0.0, labelled ``pass`` or ``fail``, the
  failed properties in the explanation (only when the run was judged);
- ``evalsite.metric.<name>``: every numeric metric of the run summary, by
  name (a metric that is not a finite number is left out and listed in
  ``EvaluationExport.metrics_skipped``);
- ``evalsite.case``: one per case, 1.0 / 0.0 labelled ``pass`` / ``fail``,
  at most ``max_cases`` of them in case-id order; a case whose model calls
  were recorded carries that trace's id and its root span's id, so a
  backend (Langfuse, Phoenix) attaches the score to the trace.

Every event carries the run's links (``evalsite.run.id``,
``evalsite.benchmark.id``, ``evalsite.benchmark.kind``,
``evalsite.run.status``); the resource is ``service.name=evalsite``.

Also here: the ``OTLP_EXPORT_HEADERS`` format, how an endpoint's answer is
judged (OTLP/HTTP: 429, 502, 503 and 504 are worth retrying, any other
error is not) and the backoff between attempts.

Deterministic: the same scores and ``observed_at`` give byte-identical
bodies; nothing here reads the clock or the network.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final
from urllib.parse import unquote

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    InstrumentationScope,
    KeyValue,
)
from opentelemetry.proto.logs.v1.logs_pb2 import (
    SEVERITY_NUMBER_INFO,
    LogRecord,
    ResourceLogs,
    ScopeLogs,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

from core.errors import CoreError

EVENT_NAME: Final = "gen_ai.evaluation.result"
ATTR_NAME: Final = "gen_ai.evaluation.name"
ATTR_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
ATTR_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
ATTR_EXPLANATION: Final = "gen_ai.evaluation.explanation"
ATTR_ERROR_TYPE: Final = "error.type"
# Receivers older than the LogRecord.event_name field read the name here.
ATTR_EVENT_NAME: Final = "event.name"

ATTR_RUN_ID: Final = "evalsite.run.id"
ATTR_RUN_STATUS: Final = "evalsite.run.status"
ATTR_BENCHMARK_ID: Final = "evalsite.benchmark.id"
ATTR_BENCHMARK_KIND: Final = "evalsite.benchmark.kind"
ATTR_CASE_ID: Final = "evalsite.case.id"

SERVICE_NAME: Final = "evalsite"
SCOPE_NAME: Final = "evalsite.evals"
CONTENT_TYPE: Final = "application/x-protobuf"

EVAL_PASS_RATE: Final = "evalsite.pass_rate"  # noqa: S105 - a name
EVAL_VERDICT: Final = "evalsite.verdict"
EVAL_METRIC_PREFIX: Final = "evalsite.metric."
EVAL_CASE: Final = "evalsite.case"
LABEL_PASS: Final = "pass"  # noqa: S105 - a label
LABEL_FAIL: Final = "fail"

EXPLANATION_MAX: Final = 500
# OTLP/HTTP: these answers mean "try again later"; every other error is final.
RETRYABLE_STATUSES: Final = frozenset({429, 502, 503, 504})
BACKOFF_BASE_S: Final = 5.0
BACKOFF_MAX_S: Final = 300.0

OUTCOME_SENT: Final = "sent"
OUTCOME_RETRY: Final = "retry"
OUTCOME_FAILED: Final = "failed"

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_TOKEN_CHARS: Final = frozenset(
    "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


class ExportSettingInvalid(CoreError):
    """A setting of the export cannot be used; the message names the
    setting and the entry, never a value (headers hold credentials)."""

    code = "invalid_setting"


@dataclass(frozen=True, slots=True)
class CaseScore:
    """One case's verdict; ``trace_id`` (32 hex) and ``span_id`` (16 hex)
    name the recorded trace of its model calls, empty when there is none."""

    case_id: str
    passed: bool
    error: str = ""
    trace_id: str = ""
    span_id: str = ""


@dataclass(frozen=True, slots=True)
class RunScores:
    """A finished run as the export sees it (no evals model involved).

    ``cases_recorded`` counts the run's recorded cases, of which ``cases``
    may hold only the first ones by case id.
    """

    run_id: str
    benchmark_id: str
    kind: str
    status: str
    total_cases: int
    passed_cases: int
    metrics: Mapping[str, object]
    verdict_passed: bool | None
    failed_properties: tuple[str, ...]
    finished_at: datetime
    cases: tuple[CaseScore, ...] = ()
    cases_recorded: int = 0


@dataclass(frozen=True, slots=True)
class EvaluationExport:
    """The request body and what it holds."""

    body: bytes
    events: int
    cases_exported: int
    cases_left_out: int
    metrics_skipped: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EndpointAnswer:
    """How an endpoint's answer is taken: ``outcome`` is ``sent``,
    ``retry`` or ``failed``; ``error`` says why in words (for a ``sent``
    answer: the events the endpoint refused, if any)."""

    outcome: str
    error: str = ""
    retry_after_s: float | None = None
    rejected: int = 0


def unix_nanos(moment: datetime) -> int:
    """``moment`` (timezone-aware) in nanoseconds since the epoch, exactly."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000


def _value(value: str | float | bool) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    return AnyValue(string_value=value)


def _attributes(pairs: list[tuple[str, str | float | bool]]) -> list[KeyValue]:
    return [KeyValue(key=key, value=_value(value)) for key, value in pairs]


def _clip(text: str) -> str:
    return text if len(text) <= EXPLANATION_MAX else text[: EXPLANATION_MAX - 1] + "…"


def _is_number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


def _record(
    scores: RunScores,
    *,
    name: str,
    value: float,
    label: str = "",
    explanation: str = "",
    extra: list[tuple[str, str | float | bool]] | None = None,
    observed_ns: int,
) -> LogRecord:
    pairs: list[tuple[str, str | float | bool]] = [
        (ATTR_EVENT_NAME, EVENT_NAME),
        (ATTR_NAME, name),
        (ATTR_SCORE_VALUE, float(value)),
    ]
    if label:
        pairs.append((ATTR_SCORE_LABEL, label))
    if explanation:
        pairs.append((ATTR_EXPLANATION, _clip(explanation)))
    pairs += [
        (ATTR_RUN_ID, scores.run_id),
        (ATTR_BENCHMARK_ID, scores.benchmark_id),
        (ATTR_BENCHMARK_KIND, scores.kind),
        (ATTR_RUN_STATUS, scores.status),
    ]
    pairs += extra or []
    record = LogRecord(
        time_unix_nano=unix_nanos(scores.finished_at),
        observed_time_unix_nano=observed_ns,
        severity_number=SEVERITY_NUMBER_INFO,
        severity_text="INFO",
        attributes=_attributes(pairs),
    )
    # opentelemetry-proto before 1.31 has no event_name field.
    if "event_name" in LogRecord.DESCRIPTOR.fields_by_name:
        record.event_name = EVENT_NAME
    return record


def _verdict_explanation(scores: RunScores) -> str:
    if scores.verdict_passed:
        return "every property held"
    failed = ", ".join(sorted(scores.failed_properties))
    return f"failed: {failed}" if failed else f"the run {scores.status}"


def _case_record(scores: RunScores, case: CaseScore, *, observed_ns: int) -> LogRecord:
    explanation = "passed" if case.passed else "failed"
    if case.error:
        explanation += f": {case.error}"
    record = _record(
        scores,
        name=EVAL_CASE,
        value=1.0 if case.passed else 0.0,
        label=LABEL_PASS if case.passed else LABEL_FAIL,
        explanation=explanation,
        extra=[(ATTR_CASE_ID, case.case_id)],
        observed_ns=observed_ns,
    )
    if len(case.trace_id) == 32 and len(case.span_id) == 16:
        record.trace_id = bytes.fromhex(case.trace_id)
        record.span_id = bytes.fromhex(case.span_id)
    return record


def evaluation_export(
    scores: RunScores, *, observed_at: datetime, max_cases: int
) -> EvaluationExport:
    """The OTLP/HTTP logs request (protobuf) carrying ``scores`` as
    ``gen_ai.evaluation.result`` events (see the module docstring), at most
    ``max_cases`` case events (0: none). Same input, same bytes."""
    observed_ns = unix_nanos(observed_at)
    total = scores.total_cases
    records = [
        _record(
            scores,
            name=EVAL_PASS_RATE,
            value=scores.passed_cases / total if total else 0.0,
            explanation=f"{scores.passed_cases} of {scores.total_cases} cases passed",
            observed_ns=observed_ns,
        )
    ]
    if scores.verdict_passed is not None:
        extra: list[tuple[str, str | float | bool]] = []
        if scores.status == "failed":
            extra.append((ATTR_ERROR_TYPE, "run_failed"))
        records.append(
            _record(
                scores,
                name=EVAL_VERDICT,
                value=1.0 if scores.verdict_passed else 0.0,
                label=LABEL_PASS if scores.verdict_passed else LABEL_FAIL,
                explanation=_verdict_explanation(scores),
                extra=extra,
                observed_ns=observed_ns,
            )
        )
    skipped = []
    for name in sorted(scores.metrics):
        value = scores.metrics[name]
        if not _is_number(value):
            skipped.append(name)
            continue
        records.append(
            _record(
                scores,
                name=EVAL_METRIC_PREFIX + name,
                value=float(value),  # type: ignore[arg-type]
                observed_ns=observed_ns,
            )
        )
    cases = sorted(scores.cases, key=lambda c: c.case_id)[: max(max_cases, 0)]
    records += [_case_record(scores, c, observed_ns=observed_ns) for c in cases]
    request = ExportLogsServiceRequest(
        resource_logs=[
            ResourceLogs(
                resource=Resource(
                    attributes=_attributes([("service.name", SERVICE_NAME)])
                ),
                scope_logs=[
                    ScopeLogs(
                        scope=InstrumentationScope(name=SCOPE_NAME),
                        log_records=records,
                    )
                ],
            )
        ]
    )
    recorded = max(scores.cases_recorded, len(scores.cases))
    return EvaluationExport(
        body=request.SerializeToString(deterministic=True),
        events=len(records),
        cases_exported=len(cases),
        cases_left_out=recorded - len(cases),
        metrics_skipped=tuple(skipped),
    )


def parse_headers(text: str) -> tuple[tuple[str, str], ...]:
    """``OTLP_EXPORT_HEADERS`` (``Name=value,Name2=value2``, values
    percent-decoded as OpenTelemetry's ``OTEL_EXPORTER_OTLP_HEADERS``) as
    pairs in order; ``ExportSettingInvalid`` naming the entry otherwise."""
    pairs = []
    for index, entry in enumerate(text.split(","), start=1):
        if not entry.strip():
            continue
        name, equals, value = entry.partition("=")
        name = name.strip()
        where = f"OTLP_EXPORT_HEADERS: entry {index}"
        if not equals:
            raise ExportSettingInvalid(f"{where} has no '=' (write Name=value)")
        if not name or not set(name) <= _TOKEN_CHARS:
            raise ExportSettingInvalid(f"{where} has no valid header name")
        decoded = unquote(value.strip())
        if any(ch in decoded for ch in "\r\n\0"):
            raise ExportSettingInvalid(f"{where} has a line break in its value")
        pairs.append((name, decoded))
    return tuple(pairs)


def _retry_after_s(value: str | None) -> float | None:
    # Only the delta-seconds form: a date would need the clock.
    if value is None or not value.strip().isdigit():
        return None
    return float(value.strip())


def _rejected(content_type: str, body: bytes) -> tuple[int, str]:
    """The partial success an OTLP answer reports, (0, "") when none or
    when the body cannot be read (the events were taken)."""
    if not body:
        return 0, ""
    try:
        if "json" in content_type:
            document = json.loads(body)
            partial = document.get("partialSuccess") or {}
            return int(partial.get("rejectedLogRecords") or 0), str(
                partial.get("errorMessage") or ""
            )
        answer = ExportLogsServiceResponse.FromString(body)
    except (DecodeError, ValueError, TypeError, AttributeError):
        return 0, ""
    partial_success = answer.partial_success
    return int(partial_success.rejected_log_records), partial_success.error_message


def endpoint_answer(
    *,
    status: int,
    reason: str,
    content_type: str = "",
    body: bytes = b"",
    retry_after: str | None = None,
) -> EndpointAnswer:
    """How the export takes the endpoint's HTTP answer (status, reason
    phrase, headers, body)."""
    if 200 <= status < 300:
        rejected, message = _rejected(content_type, body)
        if rejected:
            error = f"the endpoint refused {rejected} events"
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
