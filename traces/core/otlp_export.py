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
  were recorded carries that trace's id and its root span's id (the
  event is parented to the operation it judges, as the conventions ask).

Every event carries the run's links (``evalsite.run.id``,
``evalsite.benchmark.id``, ``evalsite.benchmark.kind``,
``evalsite.run.status``); the resource is ``service.name=evalsite``.

How the request is delivered (headers, answers, backoff) is
``traces.core.otlp_delivery``; the same results as span events, for a
backend that takes only traces, ``traces.core.otlp_export_spans``.

Deterministic: the same scores and ``observed_at`` give byte-identical
bodies; nothing here reads the clock or the network.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
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
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


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
    # When the run started (the run span's start); None: ``finished_at``.
    started_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class EvaluationExport:
    """The request body and what it holds."""

    body: bytes
    events: int
    cases_exported: int
    cases_left_out: int
    metrics_skipped: tuple[str, ...]


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


def _clip(text: str) -> str:
    return text if len(text) <= EXPLANATION_MAX else text[: EXPLANATION_MAX - 1] + "…"


def _is_number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


Attribute = tuple[str, str | float | bool]


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """One ``gen_ai.evaluation.result``: its attributes in order, and the
    case it judges (None for the run's own results)."""

    attributes: tuple[Attribute, ...]
    case: CaseScore | None = None


@dataclass(frozen=True, slots=True)
class EvaluationResults:
    """The results of a run, run-level first, then the cases by id."""

    results: tuple[EvaluationResult, ...]
    cases_exported: int
    cases_left_out: int
    metrics_skipped: tuple[str, ...]


def attribute_list(pairs: Iterable[Attribute]) -> list[KeyValue]:
    """``pairs`` as OTLP attributes (a float stays a double, a bool a bool)."""
    return [KeyValue(key=key, value=_value(value)) for key, value in pairs]


def _result(
    scores: RunScores,
    *,
    name: str,
    value: float,
    label: str = "",
    explanation: str = "",
    extra: tuple[Attribute, ...] = (),
    case: CaseScore | None = None,
) -> EvaluationResult:
    pairs: list[Attribute] = [(ATTR_NAME, name), (ATTR_SCORE_VALUE, float(value))]
    if label:
        pairs.append((ATTR_SCORE_LABEL, label))
    if explanation:
        pairs.append((ATTR_EXPLANATION, _clip(explanation)))
    pairs += [
        (ATTR_RUN_ID, scores.run_id),
        (ATTR_BENCHMARK_ID, scores.benchmark_id),
        (ATTR_BENCHMARK_KIND, scores.kind),
        (ATTR_RUN_STATUS, scores.status),
        *extra,
    ]
    return EvaluationResult(tuple(pairs), case)


def _verdict_explanation(scores: RunScores) -> str:
    if scores.verdict_passed:
        return "every property held"
    failed = ", ".join(sorted(scores.failed_properties))
    return f"failed: {failed}" if failed else f"the run {scores.status}"


def _case_result(scores: RunScores, case: CaseScore) -> EvaluationResult:
    explanation = "passed" if case.passed else "failed"
    if case.error:
        explanation += f": {case.error}"
    return _result(
        scores,
        name=EVAL_CASE,
        value=1.0 if case.passed else 0.0,
        label=LABEL_PASS if case.passed else LABEL_FAIL,
        explanation=explanation,
        extra=((ATTR_CASE_ID, case.case_id),),
        case=case,
    )


def evaluation_results(scores: RunScores, *, max_cases: int) -> EvaluationResults:
    """The run's evaluation results (see the module docstring), at most
    ``max_cases`` case results (0: none), whatever the signal."""
    total = scores.total_cases
    results = [
        _result(
            scores,
            name=EVAL_PASS_RATE,
            value=scores.passed_cases / total if total else 0.0,
            explanation=f"{scores.passed_cases} of {total} cases passed",
        )
    ]
    if scores.verdict_passed is not None:
        failed_run = scores.status == "failed"
        results.append(
            _result(
                scores,
                name=EVAL_VERDICT,
                value=1.0 if scores.verdict_passed else 0.0,
                label=LABEL_PASS if scores.verdict_passed else LABEL_FAIL,
                explanation=_verdict_explanation(scores),
                extra=((ATTR_ERROR_TYPE, "run_failed"),) if failed_run else (),
            )
        )
    skipped = []
    for name in sorted(scores.metrics):
        value = scores.metrics[name]
        if isinstance(value, int | float) and _is_number(value):
            results.append(
                _result(scores, name=EVAL_METRIC_PREFIX + name, value=float(value))
            )
        else:
            skipped.append(name)
    cases = sorted(scores.cases, key=lambda c: c.case_id)[: max(max_cases, 0)]
    results += [_case_result(scores, c) for c in cases]
    recorded = max(scores.cases_recorded, len(scores.cases))
    return EvaluationResults(
        results=tuple(results),
        cases_exported=len(cases),
        cases_left_out=recorded - len(cases),
        metrics_skipped=tuple(skipped),
    )


def linked(case: CaseScore | None) -> bool:
    """Whether ``case`` names a recorded trace and span."""
    return case is not None and len(case.trace_id) == 32 and len(case.span_id) == 16


def _log_record(
    result: EvaluationResult, *, time_ns: int, observed_ns: int
) -> LogRecord:
    record = LogRecord(
        time_unix_nano=time_ns,
        observed_time_unix_nano=observed_ns,
        severity_number=SEVERITY_NUMBER_INFO,
        severity_text="INFO",
        attributes=attribute_list(((ATTR_EVENT_NAME, EVENT_NAME), *result.attributes)),
    )
    # opentelemetry-proto before 1.31 has no event_name field.
    if "event_name" in LogRecord.DESCRIPTOR.fields_by_name:
        record.event_name = EVENT_NAME
    case = result.case
    if case is not None and linked(case):
        record.trace_id = bytes.fromhex(case.trace_id)
        record.span_id = bytes.fromhex(case.span_id)
    return record


def resource() -> Resource:
    return Resource(attributes=attribute_list([("service.name", SERVICE_NAME)]))


def evaluation_export(
    scores: RunScores, *, observed_at: datetime, max_cases: int
) -> EvaluationExport:
    """The OTLP/HTTP logs request (protobuf) carrying ``scores`` as
    ``gen_ai.evaluation.result`` events (see the module docstring), at most
    ``max_cases`` case events (0: none). Same input, same bytes."""
    found = evaluation_results(scores, max_cases=max_cases)
    time_ns = unix_nanos(scores.finished_at)
    observed_ns = unix_nanos(observed_at)
    records = [
        _log_record(r, time_ns=time_ns, observed_ns=observed_ns) for r in found.results
    ]
    request = ExportLogsServiceRequest(
        resource_logs=[
            ResourceLogs(
                resource=resource(),
                scope_logs=[
                    ScopeLogs(
                        scope=InstrumentationScope(name=SCOPE_NAME),
                        log_records=records,
                    )
                ],
            )
        ]
    )
    return EvaluationExport(
        body=request.SerializeToString(deterministic=True),
        events=len(records),
        cases_exported=found.cases_exported,
        cases_left_out=found.cases_left_out,
        metrics_skipped=found.metrics_skipped,
    )
