"""The score export as span events: a run span with the run's results and
one span per case, inside the case's recorded trace when there is one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from traces.core.otlp_export import CaseScore, RunScores, unix_nanos
from traces.core.otlp_export_spans import (
    case_span_id,
    evaluation_spans_export,
    run_span_ids,
)

STARTED = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
FINISHED = STARTED + timedelta(minutes=2)


def scores(**fields: Any) -> RunScores:
    values: dict[str, Any] = {
        "run_id": "run-1",
        "benchmark_id": "suite-a",
        "kind": "suite",
        "status": "completed",
        "total_cases": 2,
        "passed_cases": 1,
        "metrics": {"action_rate": 0.5},
        "verdict_passed": True,
        "failed_properties": (),
        "finished_at": FINISHED,
        "started_at": STARTED,
        "cases": (
            CaseScore("s1", passed=True, trace_id="ab" * 16, span_id="cd" * 8),
            CaseScore("s2", passed=False),
        ),
        "cases_recorded": 2,
    }
    values.update(fields)
    return RunScores(**values)


def spans_of(body: bytes) -> list[Any]:
    request = ExportTraceServiceRequest.FromString(body)
    (resource_spans,) = request.resource_spans
    service = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    assert service == {"service.name": "evalsite"}
    (scope_spans,) = resource_spans.scope_spans
    return list(scope_spans.spans)


def attrs(item: Any) -> dict[str, Any]:
    return {
        pair.key: getattr(pair.value, pair.value.WhichOneof("value"))
        for pair in item.attributes
    }


def test_the_run_span_carries_the_run_results_as_evaluation_events() -> None:
    export = evaluation_spans_export(scores(), max_cases=10)
    run_span = spans_of(export.body)[0]
    trace_id, span_id = run_span_ids("run-1")
    assert (run_span.trace_id.hex(), run_span.span_id.hex()) == (trace_id, span_id)
    assert run_span.parent_span_id == b""
    assert run_span.name == "evaluate suite-a"
    assert run_span.start_time_unix_nano == unix_nanos(STARTED)
    assert run_span.end_time_unix_nano == unix_nanos(FINISHED)
    assert attrs(run_span) == {
        "evalsite.run.id": "run-1",
        "evalsite.benchmark.id": "suite-a",
        "evalsite.benchmark.kind": "suite",
        "evalsite.run.status": "completed",
    }
    assert {e.name for e in run_span.events} == {"gen_ai.evaluation.result"}
    names = [attrs(e)["gen_ai.evaluation.name"] for e in run_span.events]
    assert names == [
        "evalsite.pass_rate",
        "evalsite.verdict",
        "evalsite.metric.action_rate",
    ]
    verdict = attrs(run_span.events[1])
    assert verdict["gen_ai.evaluation.score.label"] == "pass"
    assert verdict["gen_ai.evaluation.score.value"] == 1.0
    assert run_span.status.code == Status.STATUS_CODE_UNSET
    assert export.events == 5


def test_a_case_span_sits_in_its_recorded_trace_or_under_the_run_span() -> None:
    export = evaluation_spans_export(scores(), max_cases=10)
    _, linked_case, lone_case = spans_of(export.body)
    trace_id, run_span_id = run_span_ids("run-1")
    assert linked_case.trace_id.hex() == "ab" * 16
    assert linked_case.parent_span_id.hex() == "cd" * 8
    assert linked_case.span_id.hex() == case_span_id("run-1", "s1")
    assert lone_case.trace_id.hex() == trace_id
    assert lone_case.parent_span_id.hex() == run_span_id
    assert attrs(lone_case)["evalsite.case.id"] == "s2"
    (event,) = lone_case.events
    assert attrs(event)["gen_ai.evaluation.score.label"] == "fail"
    assert attrs(event)["evalsite.case.id"] == "s2"


def test_a_failed_run_span_has_the_error_status() -> None:
    export = evaluation_spans_export(
        scores(status="failed", verdict_passed=False), max_cases=0
    )
    (run_span,) = spans_of(export.body)
    assert run_span.status.code == Status.STATUS_CODE_ERROR
    assert run_span.status.message == "the run failed"


def test_case_spans_are_capped_and_the_rest_counted() -> None:
    export = evaluation_spans_export(scores(), max_cases=1)
    assert len(spans_of(export.body)) == 2
    assert (export.cases_exported, export.cases_left_out) == (1, 1)


def test_the_same_scores_give_the_same_bytes_and_span_ids() -> None:
    first = evaluation_spans_export(scores(), max_cases=10)
    again = evaluation_spans_export(
        scores(cases=tuple(reversed(scores().cases))), max_cases=10
    )
    assert first.body == again.body
    assert run_span_ids("run-1") != run_span_ids("run-2")
