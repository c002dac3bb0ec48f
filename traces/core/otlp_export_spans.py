"""The score export as span events, for an endpoint that takes only traces.

Langfuse and Phoenix ingest OTLP traces and have no logs endpoint, so the
log-based events of ``traces.core.otlp_export`` would be refused there. To
such an endpoint the same results go out as span events named
``gen_ai.evaluation.result`` with the same attributes:

- one run span, ``evaluate <benchmark id>``, from the run's start to its
  finish, in a trace of its own whose ids derive from the run id (a resend
  is the same span); it carries the run-level results as events and the
  run's links as attributes, and the status ERROR when the run failed;
- one span per exported case, ``evaluate <case id>``, carrying that case's
  result: a child of the case's recorded root span, in that trace, when
  its model calls were recorded (a backend that holds the trace shows the
  verdict inside it), else a child of the run span.

Deterministic: the same scores give byte-identical bodies.
"""

from __future__ import annotations

import hashlib
from typing import Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.trace.v1.trace_pb2 import (
    ResourceSpans,
    ScopeSpans,
    Span,
    Status,
)

from traces.core.otlp_export import (
    ATTR_BENCHMARK_ID,
    ATTR_BENCHMARK_KIND,
    ATTR_CASE_ID,
    ATTR_RUN_ID,
    ATTR_RUN_STATUS,
    EVENT_NAME,
    SCOPE_NAME,
    Attribute,
    EvaluationExport,
    EvaluationResult,
    RunScores,
    attribute_list,
    evaluation_results,
    linked,
    resource,
    unix_nanos,
)

RUN_SPAN_PREFIX: Final = "evaluate "


def run_span_ids(run_id: str) -> tuple[str, str]:
    """(trace id, span id) of the run span of ``run_id``, in hex."""
    digest = hashlib.sha256(f"evalsite.run:{run_id}".encode()).hexdigest()
    return digest[:32], digest[32:48]


def case_span_id(run_id: str, case_id: str) -> str:
    """The span id of the evaluation span of case ``case_id``, in hex."""
    key = f"evalsite.case:{run_id}:{case_id}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _event(result: EvaluationResult, *, time_ns: int) -> Span.Event:
    return Span.Event(
        time_unix_nano=time_ns,
        name=EVENT_NAME,
        attributes=attribute_list(result.attributes),
    )


def evaluation_spans_export(scores: RunScores, *, max_cases: int) -> EvaluationExport:
    """The OTLP/HTTP traces request (protobuf) carrying ``scores`` as span
    events (see the module docstring), at most ``max_cases`` case spans.
    Same input, same bytes."""
    found = evaluation_results(scores, max_cases=max_cases)
    end_ns = unix_nanos(scores.finished_at)
    start_ns = unix_nanos(scores.started_at or scores.finished_at)
    trace_id, run_span_id = run_span_ids(scores.run_id)
    links: list[Attribute] = [
        (ATTR_RUN_ID, scores.run_id),
        (ATTR_BENCHMARK_ID, scores.benchmark_id),
        (ATTR_BENCHMARK_KIND, scores.kind),
        (ATTR_RUN_STATUS, scores.status),
    ]
    run_span = Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex(run_span_id),
        name=RUN_SPAN_PREFIX + scores.benchmark_id,
        kind=Span.SPAN_KIND_INTERNAL,
        start_time_unix_nano=start_ns,
        end_time_unix_nano=max(end_ns, start_ns),
        attributes=attribute_list(links),
        events=[_event(r, time_ns=end_ns) for r in found.results if r.case is None],
    )
    if scores.status == "failed":
        run_span.status.CopyFrom(
            Status(code=Status.STATUS_CODE_ERROR, message="the run failed")
        )
    spans = [run_span]
    for result in found.results:
        case = result.case
        if case is None:
            continue
        in_case_trace = linked(case)
        spans.append(
            Span(
                trace_id=bytes.fromhex(case.trace_id if in_case_trace else trace_id),
                span_id=bytes.fromhex(case_span_id(scores.run_id, case.case_id)),
                parent_span_id=bytes.fromhex(
                    case.span_id if in_case_trace else run_span_id
                ),
                name=RUN_SPAN_PREFIX + case.case_id,
                kind=Span.SPAN_KIND_INTERNAL,
                start_time_unix_nano=end_ns,
                end_time_unix_nano=end_ns,
                attributes=attribute_list([*links, (ATTR_CASE_ID, case.case_id)]),
                events=[_event(result, time_ns=end_ns)],
            )
        )
    request = ExportTraceServiceRequest(
        resource_spans=[
            ResourceSpans(
                resource=resource(),
                scope_spans=[
                    ScopeSpans(scope=InstrumentationScope(name=SCOPE_NAME), spans=spans)
                ],
            )
        ]
    )
    return EvaluationExport(
        body=request.SerializeToString(deterministic=True),
        events=len(found.results),
        cases_exported=found.cases_exported,
        cases_left_out=found.cases_left_out,
        metrics_skipped=found.metrics_skipped,
    )
