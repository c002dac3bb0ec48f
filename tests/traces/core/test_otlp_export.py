"""A run's scores as OTLP evaluation events: the body decodes with the
official messages and carries the GenAI evaluation attributes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
)

from traces.core.otlp_export import (
    CaseScore,
    RunScores,
    evaluation_export,
    unix_nanos,
)

FINISHED = datetime(2026, 11, 1, 12, 0, 0, 123456, tzinfo=UTC)
OBSERVED = FINISHED + timedelta(seconds=5)


def scores(**fields: Any) -> RunScores:
    values: dict[str, Any] = {
        "run_id": "run-1",
        "benchmark_id": "suite-a",
        "kind": "suite",
        "status": "completed",
        "total_cases": 4,
        "passed_cases": 3,
        "metrics": {"action_rate": 0.25, "hallucination_count": 1},
        "verdict_passed": False,
        "failed_properties": ("no_hallucination", "no_compulsion"),
        "finished_at": FINISHED,
        "cases": (
            CaseScore("s2", passed=False, error="model timed out"),
            CaseScore("s1", passed=True, trace_id="ab" * 16, span_id="cd" * 8),
        ),
        "cases_recorded": 4,
    }
    values.update(fields)
    return RunScores(**values)


def decoded(body: bytes) -> tuple[dict[str, Any], list[Any]]:
    request = ExportLogsServiceRequest.FromString(body)
    (resource_logs,) = request.resource_logs
    resource = {a.key: a.value.string_value for a in resource_logs.resource.attributes}
    (scope_logs,) = resource_logs.scope_logs
    assert scope_logs.scope.name == "evalsite.evals"
    return resource, list(scope_logs.log_records)


def attrs(record: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in record.attributes:
        kind = pair.value.WhichOneof("value")
        out[pair.key] = getattr(pair.value, kind)
    return out


def by_name(records: list[Any]) -> dict[str, dict[str, Any]]:
    return {attrs(r)["gen_ai.evaluation.name"]: attrs(r) for r in records}


def test_every_event_is_a_gen_ai_evaluation_result_of_the_run() -> None:
    export = evaluation_export(scores(), observed_at=OBSERVED, max_cases=10)
    resource, records = decoded(export.body)
    assert resource == {"service.name": "evalsite"}
    assert export.events == len(records) == 6
    for record in records:
        assert record.event_name == "gen_ai.evaluation.result"
        assert record.time_unix_nano == unix_nanos(FINISHED)
        assert record.observed_time_unix_nano == unix_nanos(OBSERVED)
        found = attrs(record)
        assert found["event.name"] == "gen_ai.evaluation.result"
        assert found["evalsite.run.id"] == "run-1"
        assert found["evalsite.benchmark.id"] == "suite-a"
        assert found["evalsite.benchmark.kind"] == "suite"
        assert found["evalsite.run.status"] == "completed"


def test_run_events_carry_score_value_label_and_explanation() -> None:
    export = evaluation_export(scores(), observed_at=OBSERVED, max_cases=0)
    events = by_name(decoded(export.body)[1])
    assert list(events) == [
        "evalsite.pass_rate",
        "evalsite.verdict",
        "evalsite.metric.action_rate",
        "evalsite.metric.hallucination_count",
    ]
    assert events["evalsite.pass_rate"]["gen_ai.evaluation.score.value"] == 0.75
    assert (
        events["evalsite.pass_rate"]["gen_ai.evaluation.explanation"]
        == "3 of 4 cases passed"
    )
    assert "gen_ai.evaluation.score.label" not in events["evalsite.pass_rate"]
    verdict = events["evalsite.verdict"]
    assert verdict["gen_ai.evaluation.score.value"] == 0.0
    assert verdict["gen_ai.evaluation.score.label"] == "fail"
    assert (
        verdict["gen_ai.evaluation.explanation"]
        == "failed: no_compulsion, no_hallucination"
    )
    assert "error.type" not in verdict
    metric = events["evalsite.metric.hallucination_count"]
    assert metric["gen_ai.evaluation.score.value"] == 1.0
    assert isinstance(metric["gen_ai.evaluation.score.value"], float)


def test_a_passing_run_is_labelled_pass() -> None:
    export = evaluation_export(
        scores(verdict_passed=True, failed_properties=()),
        observed_at=OBSERVED,
        max_cases=0,
    )
    verdict = by_name(decoded(export.body)[1])["evalsite.verdict"]
    assert verdict["gen_ai.evaluation.score.value"] == 1.0
    assert verdict["gen_ai.evaluation.score.label"] == "pass"
    assert verdict["gen_ai.evaluation.explanation"] == "every property held"


def test_a_failed_run_says_so_as_error_type() -> None:
    export = evaluation_export(
        scores(status="failed", failed_properties=()),
        observed_at=OBSERVED,
        max_cases=0,
    )
    verdict = by_name(decoded(export.body)[1])["evalsite.verdict"]
    assert verdict["error.type"] == "run_failed"
    assert verdict["gen_ai.evaluation.explanation"] == "the run failed"


def test_an_unjudged_run_has_no_verdict_event() -> None:
    export = evaluation_export(
        scores(verdict_passed=None), observed_at=OBSERVED, max_cases=0
    )
    assert "evalsite.verdict" not in by_name(decoded(export.body)[1])


def test_metrics_that_are_not_finite_numbers_are_left_out_and_named() -> None:
    export = evaluation_export(
        scores(
            metrics={"a": float("nan"), "b": True, "c": None, "d": "x", "e": 2},
        ),
        observed_at=OBSERVED,
        max_cases=0,
    )
    names = [n for n in by_name(decoded(export.body)[1]) if "metric" in n]
    assert names == ["evalsite.metric.e"]
    assert export.metrics_skipped == ("a", "b", "c", "d")


def test_case_events_link_the_recorded_trace_and_say_why_a_case_failed() -> None:
    export = evaluation_export(scores(), observed_at=OBSERVED, max_cases=10)
    records = [
        r
        for r in decoded(export.body)[1]
        if attrs(r)["gen_ai.evaluation.name"] == "evalsite.case"
    ]
    assert [attrs(r)["evalsite.case.id"] for r in records] == ["s1", "s2"]
    first, second = records
    assert first.trace_id.hex() == "ab" * 16
    assert first.span_id.hex() == "cd" * 8
    assert attrs(first)["gen_ai.evaluation.score.label"] == "pass"
    assert attrs(first)["gen_ai.evaluation.explanation"] == "passed"
    assert (second.trace_id, second.span_id) == (b"", b"")
    assert attrs(second)["gen_ai.evaluation.score.value"] == 0.0
    assert attrs(second)["gen_ai.evaluation.score.label"] == "fail"
    assert attrs(second)["gen_ai.evaluation.explanation"] == "failed: model timed out"


def test_case_events_are_capped_and_the_rest_counted() -> None:
    export = evaluation_export(scores(), observed_at=OBSERVED, max_cases=1)
    cases = [
        attrs(r)["evalsite.case.id"]
        for r in decoded(export.body)[1]
        if attrs(r)["gen_ai.evaluation.name"] == "evalsite.case"
    ]
    assert cases == ["s1"]
    assert (export.cases_exported, export.cases_left_out) == (1, 3)


def test_a_long_explanation_is_clipped() -> None:
    export = evaluation_export(
        scores(cases=(CaseScore("s1", passed=False, error="x" * 2000),)),
        observed_at=OBSERVED,
        max_cases=1,
    )
    case = by_name(decoded(export.body)[1])["evalsite.case"]
    assert len(case["gen_ai.evaluation.explanation"]) == 500
    assert case["gen_ai.evaluation.explanation"].endswith("…")


def test_the_same_scores_give_the_same_bytes() -> None:
    shuffled = scores(cases=tuple(reversed(scores().cases)))
    first = evaluation_export(scores(), observed_at=OBSERVED, max_cases=10)
    second = evaluation_export(shuffled, observed_at=OBSERVED, max_cases=10)
    assert first.body == second.body


def test_unix_nanos_is_exact_to_the_microsecond() -> None:
    assert unix_nanos(datetime(1970, 1, 1, 0, 0, 1, 1, tzinfo=UTC)) == 1_000_001_000
