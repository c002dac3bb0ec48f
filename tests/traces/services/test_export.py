"""Sending a score export: a local OTLP receiver decodes what arrives;
retries, giving up, the trace links, and no request inside a transaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from django.db import connection
from django.test import override_settings

from evals.models import CaseResult, Run
from tests.builders import benchmark_make
from tests.traces.otlp_receiver import otlp_receiver
from traces.core.records import SOURCE_HARNESS, SpanRecord
from traces.models import ScoreExport
from traces.services import export as export_service
from traces.services.export import score_export_send
from traces.services.spans import store_spans

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def finished_run(run_id: str = "run-1") -> Run:
    run = Run.objects.create(
        run_id=run_id,
        benchmark=benchmark_make("suite-a", kind="suite"),
        status=Run.Status.COMPLETED,
        source=Run.Source.HARNESS,
        started_at=T0,
        completed_at=T0 + timedelta(minutes=1),
        total_cases=2,
        passed_cases=1,
        failed_cases=1,
        metrics={"action_rate": 0.5},
        verdict_passed=False,
        failed_properties=["no_hallucination"],
    )
    CaseResult.objects.bulk_create(
        [
            CaseResult(run=run, case_id="s1", passed=True),
            CaseResult(run=run, case_id="s2", passed=False, error="model timed out"),
        ]
    )
    return run


def pending(run_id: str = "run-1", **fields: Any) -> ScoreExport:
    return ScoreExport.objects.create(run_ref=run_id, **fields)


def test_a_run_arrives_as_decodable_evaluation_events(log_lines: Any) -> None:
    finished_run()
    export = pending()
    with (
        otlp_receiver(200) as receiver,
        override_settings(
            OTLP_EXPORT_ENDPOINT=receiver.url,
            OTLP_EXPORT_HEADERS="Authorization=Bearer%20t0k,x-team=evals",
        ),
    ):
        result = score_export_send(export_pk=export.pk)
    assert (result.outcome, result.attempts, result.error) == ("sent", 1, "")
    (received,) = receiver.received
    assert received.path == "/v1/logs"
    assert received.headers["content-type"] == "application/x-protobuf"
    assert received.headers["authorization"] == "Bearer t0k"
    assert received.headers["x-team"] == "evals"
    events = received.events()
    assert [e["gen_ai.evaluation.name"] for e in events] == [
        "evalsite.pass_rate",
        "evalsite.verdict",
        "evalsite.metric.action_rate",
        "evalsite.case",
        "evalsite.case",
    ]
    assert {e["evalsite.run.id"] for e in events} == {"run-1"}
    assert events[0]["gen_ai.evaluation.score.value"] == 0.5
    assert events[1]["gen_ai.evaluation.score.label"] == "fail"
    assert events[4]["gen_ai.evaluation.explanation"] == "failed: model timed out"
    export.refresh_from_db()
    assert (export.status, export.attempts, export.last_error) == ("sent", 1, "")
    assert export.sent_at is not None
    assert log_lines("[Traces] score_export_sent") == [
        f"[Traces] score_export_sent run_id=run-1 export={export.pk} attempts=1 "
        "events=5 cases_left_out=0"
    ]


def test_a_case_with_recorded_model_calls_links_its_trace() -> None:
    finished_run()
    root = SpanRecord(
        trace_id="ab" * 16,
        span_id="01" * 8,
        name="case s1",
        started_at=T0,
        ended_at=T0 + timedelta(seconds=1),
        source=SOURCE_HARNESS,
        run_ref="run-1",
        case_ref="s1",
    )
    child = SpanRecord(
        trace_id="ab" * 16,
        span_id="02" * 8,
        parent_span_id="01" * 8,
        name="chat",
        started_at=T0 - timedelta(seconds=1),
        ended_at=T0,
        source=SOURCE_HARNESS,
        run_ref="run-1",
        case_ref="s1",
    )
    store_spans([child, root])
    export = pending()
    with (
        otlp_receiver() as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url),
    ):
        score_export_send(export_pk=export.pk)
    cases = [
        e
        for e in receiver.received[0].events()
        if e["gen_ai.evaluation.name"] == "evalsite.case"
    ]
    assert [(e["evalsite.case.id"], e["trace_id"]) for e in cases] == [
        ("s1", "ab" * 16),
        ("s2", ""),
    ]


def test_a_traces_endpoint_gets_the_results_as_span_events() -> None:
    finished_run()
    export = pending()
    with (
        otlp_receiver(path="/api/public/otel/v1/traces") as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url),
    ):
        result = score_export_send(export_pk=export.pk)
    assert result.outcome == "sent"
    (received,) = receiver.received
    assert received.path == "/api/public/otel/v1/traces"
    spans = received.request.resource_spans[0].scope_spans[0].spans
    assert [s.name for s in spans] == ["evaluate suite-a", "evaluate s1", "evaluate s2"]
    names = [e["gen_ai.evaluation.name"] for e in received.events()]
    assert names == [
        "evalsite.pass_rate",
        "evalsite.verdict",
        "evalsite.metric.action_rate",
        "evalsite.case",
        "evalsite.case",
    ]


def test_a_503_is_retried_later_and_counted(log_lines: Any) -> None:
    finished_run()
    export = pending()
    with (
        otlp_receiver(503) as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url, OTLP_EXPORT_RETRIES=2),
    ):
        result = score_export_send(export_pk=export.pk)
    assert (result.outcome, result.attempts, result.retry_in_s) == ("retry", 1, 0.0)
    export.refresh_from_db()
    assert (export.status, export.attempts) == ("pending", 1)
    assert export.last_error == "HTTP 503 Service Unavailable"
    assert log_lines("[Traces] score_export_retry") == [
        f"[Traces] score_export_retry run_id=run-1 export={export.pk} attempts=1 "
        "retry_in_s=0.0 error=HTTP 503 Service Unavailable"
    ]


def test_after_its_retries_an_export_fails_with_the_reason(log_lines: Any) -> None:
    finished_run()
    export = pending(attempts=2)
    with (
        otlp_receiver(503) as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url, OTLP_EXPORT_RETRIES=2),
    ):
        result = score_export_send(export_pk=export.pk)
    assert (result.outcome, result.attempts) == ("failed", 3)
    export.refresh_from_db()
    assert (export.status, export.attempts) == ("failed", 3)
    assert export.last_error == "gave up after 3 attempts: HTTP 503 Service Unavailable"
    assert log_lines("[Traces] score_export_failed") == [
        f"[Traces] score_export_failed run_id=run-1 export={export.pk} attempts=3 "
        "error=gave up after 3 attempts: HTTP 503 Service Unavailable"
    ]


def test_a_400_fails_at_once() -> None:
    finished_run()
    export = pending()
    with (
        otlp_receiver(400) as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url, OTLP_EXPORT_RETRIES=5),
    ):
        result = score_export_send(export_pk=export.pk)
    export.refresh_from_db()
    assert (result.outcome, export.status, export.attempts) == ("failed", "failed", 1)
    assert export.last_error == "HTTP 400 Bad Request"


def test_an_endpoint_nobody_listens_on_is_retried_without_naming_it() -> None:
    finished_run()
    export = pending()
    with otlp_receiver() as receiver:
        closed = receiver.url
    with override_settings(OTLP_EXPORT_ENDPOINT=closed):
        result = score_export_send(export_pk=export.pk)
    assert result.outcome == "retry"
    assert result.error == "could not reach the endpoint (ConnectError)"
    export.refresh_from_db()
    assert export.last_error == "could not reach the endpoint (ConnectError)"


@pytest.mark.parametrize(
    ("raised", "error"),
    [
        (httpx.ReadTimeout("slow"), "no answer within the timeout"),
        (httpx.DecodingError("bad gzip"), "unreadable answer (DecodingError)"),
    ],
)
def test_a_timeout_or_a_broken_answer_is_retried(
    monkeypatch: Any, raised: Exception, error: str
) -> None:
    finished_run()
    export = pending()

    def post(*args: Any, **kwargs: Any) -> Any:
        assert kwargs["timeout"] == 4
        raise raised

    monkeypatch.setattr(httpx, "post", post)
    with override_settings(
        OTLP_EXPORT_ENDPOINT="http://127.0.0.1:9/v1/logs", OTLP_EXPORT_TIMEOUT_S=4
    ):
        result = score_export_send(export_pk=export.pk)
    assert (result.outcome, result.error, result.retry_in_s) == ("retry", error, 5.0)


def test_bad_headers_fail_the_export_without_a_request() -> None:
    finished_run()
    export = pending()
    with (
        otlp_receiver() as receiver,
        override_settings(
            OTLP_EXPORT_ENDPOINT=receiver.url,
            OTLP_EXPORT_HEADERS="secret-without-equals",
        ),
    ):
        result = score_export_send(export_pk=export.pk)
    assert receiver.received == []
    export.refresh_from_db()
    assert (result.outcome, export.status, export.attempts) == ("failed", "failed", 0)
    assert (
        export.last_error
        == "OTLP_EXPORT_HEADERS: entry 1 has no '=' (write Name=value)"
    )
    assert "secret" not in export.last_error.replace("OTLP", "")


def test_an_export_of_a_deleted_run_fails_without_a_request() -> None:
    export = pending("gone")
    with (
        otlp_receiver() as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url),
    ):
        result = score_export_send(export_pk=export.pk)
    assert receiver.received == []
    export.refresh_from_db()
    assert (result.outcome, export.status) == ("failed", "failed")
    assert export.last_error == "the run no longer exists"


@pytest.mark.parametrize("status", ["sent", "failed", "dropped"])
def test_only_pending_exports_are_sent(status: str) -> None:
    finished_run()
    export = pending(status=status)
    with (
        otlp_receiver() as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url),
    ):
        result = score_export_send(export_pk=export.pk)
    assert (result.outcome, receiver.received) == ("skipped", [])
    export.refresh_from_db()
    assert (export.status, export.attempts) == (status, 0)


def test_nothing_is_sent_when_the_setting_is_empty(monkeypatch: Any) -> None:
    finished_run()
    export = pending()
    monkeypatch.setattr(httpx, "post", lambda *a, **k: pytest.fail("posted"))
    with override_settings(OTLP_EXPORT_ENDPOINT=""):
        result = score_export_send(export_pk=export.pk)
    assert result.outcome == "skipped"
    export.refresh_from_db()
    assert (export.status, export.attempts) == ("pending", 0)


def test_a_send_whose_attempt_was_claimed_meanwhile_posts_nothing(
    monkeypatch: Any,
) -> None:
    finished_run()
    export = pending()
    original = export_service.evaluation_export

    def claimed_by_another(*args: Any, **kwargs: Any) -> Any:
        ScoreExport.objects.filter(pk=export.pk).update(attempts=1)
        return original(*args, **kwargs)

    monkeypatch.setattr(export_service, "evaluation_export", claimed_by_another)
    with (
        otlp_receiver() as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url),
    ):
        result = score_export_send(export_pk=export.pk)
    assert (result.outcome, receiver.received) == ("skipped", [])


@pytest.mark.django_db(transaction=True)
def test_the_request_is_made_with_no_transaction_open(monkeypatch: Any) -> None:
    finished_run()
    export = pending()
    seen: list[bool] = []
    original = httpx.post

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(connection.in_atomic_block)
        return original(*args, **kwargs)

    monkeypatch.setattr(httpx, "post", watched)
    with (
        otlp_receiver() as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url),
    ):
        assert score_export_send(export_pk=export.pk).outcome == "sent"
    assert seen == [False]
