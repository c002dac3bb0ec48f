from __future__ import annotations

import json

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)

from traces.core.otlp_answer import (
    REASONS_SHOWN,
    Status,
    export_response,
    rejection_message,
    status_body,
)


def test_full_success_is_an_empty_response_in_both_encodings() -> None:
    assert export_response(rejected=0, reasons=[], encoding="json") == b"{}"
    assert export_response(rejected=0, reasons=[], encoding="protobuf") == b""


def test_partial_success_counts_and_names_the_first_reasons() -> None:
    reasons = [f"spans[{i}]: span id is missing" for i in range(8)]
    raw = export_response(rejected=8, reasons=reasons, encoding="protobuf")
    response = ExportTraceServiceResponse.FromString(raw)
    assert response.partial_success.rejected_spans == 8
    assert response.partial_success.error_message == (
        "8 span(s) rejected: " + "; ".join(reasons[:REASONS_SHOWN]) + "; and 3 more"
    )
    document = json.loads(export_response(rejected=1, reasons=["r"], encoding="json"))
    assert document == {
        "partialSuccess": {
            "rejectedSpans": "1",
            "errorMessage": "1 span(s) rejected: r",
        }
    }


def test_rejection_message_is_bounded() -> None:
    assert len(rejection_message(["x" * 5000], 1)) == 1000


def test_refusals_are_google_rpc_status() -> None:
    assert json.loads(status_body(400, "bad body", "json")) == {
        "code": 3,
        "message": "bad body",
    }
    status = Status.FromString(status_body(401, "who?", "protobuf"))
    assert (status.code, status.message) == (16, "who?")
    assert json.loads(status_body(413, "big", "json"))["code"] == 8
    assert json.loads(status_body(500, "?", "json"))["code"] == 13
