"""Delivering the score export: the endpoint's signal, the headers
setting, how an answer is taken and the backoff."""

from __future__ import annotations

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsPartialSuccess,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)

from traces.core.otlp_delivery import (
    ExportSettingInvalid,
    endpoint_answer,
    parse_headers,
    retry_delay_s,
    signal_of,
)


@pytest.mark.parametrize(
    ("path", "signal"),
    [
        ("/v1/logs", "logs"),
        ("/", "logs"),
        ("/v1/traces", "traces"),
        ("/api/public/otel/v1/traces/", "traces"),
        ("/v1/traces/extra", "logs"),
    ],
)
def test_an_endpoint_path_ending_in_v1_traces_takes_spans(
    path: str, signal: str
) -> None:
    assert signal_of(path) == signal


def test_a_traces_partial_success_counts_spans() -> None:
    body = ExportTraceServiceResponse(
        partial_success=ExportTracePartialSuccess(rejected_spans=3)
    ).SerializeToString()
    answer = endpoint_answer(
        status=200,
        reason="OK",
        content_type="application/x-protobuf",
        body=body,
        signal="traces",
    )
    assert (answer.outcome, answer.rejected, answer.error) == (
        "sent",
        3,
        "the endpoint refused 3 spans",
    )


def test_headers_are_name_value_pairs_with_percent_decoded_values() -> None:
    assert parse_headers("Authorization=Basic%20abc%3D%3D, x-team = a=b ,") == (
        ("Authorization", "Basic abc=="),
        ("x-team", "a=b"),
    )
    assert parse_headers("") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a=1,novalue", "OTLP_EXPORT_HEADERS: entry 2 has no '=' (write Name=value)"),
        ("bad name=1", "OTLP_EXPORT_HEADERS: entry 1 has no valid header name"),
        ("=1", "OTLP_EXPORT_HEADERS: entry 1 has no valid header name"),
        ("a=x%0Ay", "OTLP_EXPORT_HEADERS: entry 1 has a line break in its value"),
    ],
)
def test_bad_headers_are_refused_naming_the_entry_not_the_value(
    text: str, message: str
) -> None:
    with pytest.raises(ExportSettingInvalid) as caught:
        parse_headers(text)
    assert caught.value.message == message
    assert caught.value.code == "invalid_setting"


def test_a_2xx_answer_is_sent() -> None:
    answer = endpoint_answer(status=200, reason="OK")
    assert (answer.outcome, answer.error, answer.rejected) == ("sent", "", 0)


def test_a_partial_success_is_sent_with_the_refused_count() -> None:
    body = ExportLogsServiceResponse(
        partial_success=ExportLogsPartialSuccess(
            rejected_log_records=2, error_message="bad attribute"
        )
    ).SerializeToString()
    answer = endpoint_answer(
        status=200, reason="OK", content_type="application/x-protobuf", body=body
    )
    assert (answer.outcome, answer.rejected) == ("sent", 2)
    assert answer.error == "the endpoint refused 2 events: bad attribute"
    as_json = endpoint_answer(
        status=200,
        reason="OK",
        content_type="application/json",
        body=b'{"partialSuccess": {"rejectedLogRecords": "1"}}',
    )
    assert (as_json.rejected, as_json.error) == (1, "the endpoint refused 1 events")


def test_an_unreadable_success_body_still_counts_as_sent() -> None:
    answer = endpoint_answer(
        status=200, reason="OK", content_type="application/x-protobuf", body=b"\xff"
    )
    assert (answer.outcome, answer.rejected) == ("sent", 0)


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_throttled_or_unavailable_answers_are_retried(status: int) -> None:
    answer = endpoint_answer(status=status, reason="Busy", retry_after="7")
    assert (answer.outcome, answer.error, answer.retry_after_s) == (
        "retry",
        f"HTTP {status} Busy",
        7.0,
    )


@pytest.mark.parametrize("status", [400, 401, 404, 413, 500])
def test_other_errors_are_final(status: int) -> None:
    answer = endpoint_answer(status=status, reason="No")
    assert (answer.outcome, answer.error) == ("failed", f"HTTP {status} No")


def test_backoff_doubles_up_to_five_minutes_or_follows_retry_after() -> None:
    assert [retry_delay_s(n) for n in (1, 2, 3, 4, 10)] == [5, 10, 20, 40, 300]
    assert retry_delay_s(1, retry_after_s=30) == 30
    assert retry_delay_s(1, retry_after_s=9999) == 300
    assert (
        endpoint_answer(status=503, reason="", retry_after="Wed").retry_after_s is None
    )
