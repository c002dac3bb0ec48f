"""POST /v1/traces over HTTP: encodings, answers, refusals and keys."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)
from rest_framework.test import APIClient

from accounts.services import api_key_create
from core.scopes import STREAM, TRACES
from tests.builders import agent_make, key_client
from tests.traces.otlp_support import (
    gzipped,
    json_body,
    json_span,
    proto_body,
    proto_span,
    span_ids,
)
from traces.core.otlp_answer import Status
from traces.models import Span

pytestmark = pytest.mark.django_db

URL = "/v1/traces"
PROTOBUF = "application/x-protobuf"
JSON = "application/json"


def post(client: APIClient, body: bytes, content_type: str, **extra: Any) -> Any:
    client.raise_request_exception = False
    return client.generic("POST", URL, body, content_type=content_type, **extra)


def test_protobuf_export_is_stored_and_answered_in_protobuf(
    agent_client: APIClient, agent: Any
) -> None:
    response = post(agent_client, proto_body([proto_span()]), PROTOBUF)
    assert response.status_code == 200
    assert response["Content-Type"] == PROTOBUF
    answer = ExportTraceServiceResponse.FromString(response.content)
    assert not answer.HasField("partial_success")
    row = Span.objects.get()
    assert (row.agent_id, row.request_model, row.input_tokens) == (
        agent.pk,
        "gpt-4o-mini",
        120,
    )


def test_json_export_is_answered_in_json(agent_client: APIClient) -> None:
    response = post(agent_client, json_body([json_span()]), JSON)
    assert response.status_code == 200
    assert response["Content-Type"] == JSON
    assert response.json() == {}
    assert Span.objects.count() == 1


def test_gzip_export_is_inflated(agent_client: APIClient) -> None:
    body = gzipped(json_body([json_span()]))
    response = post(agent_client, body, JSON, HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 200
    assert Span.objects.count() == 1


def test_bad_spans_are_a_partial_success_and_the_rest_is_stored(
    agent_client: APIClient,
) -> None:
    ids = span_ids(5)
    spans = [
        json_span({"gen_ai.usage.input_tokens": "NaN"}, span_id=ids[0]),
        json_span({"gen_ai.usage.output_tokens": -2}, span_id=ids[1]),
        json_span(span_id=""),
        json_span({"my.unknown": {"deep": [1, "two"]}}, span_id=ids[3]),
        json_span(span_id=ids[4], endTimeUnixNano="1"),
    ]
    response = post(agent_client, json_body(spans), JSON)
    assert response.status_code == 200
    partial = response.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "4"
    assert partial["errorMessage"] == (
        "4 span(s) rejected: "
        "resourceSpans[0].scopeSpans[0].spans[0]: input token count must be an "
        "integer, got NaN; "
        "resourceSpans[0].scopeSpans[0].spans[1]: output token count must be at "
        "least 0, got -2; "
        "resourceSpans[0].scopeSpans[0].spans[2]: span id is missing; "
        "resourceSpans[0].scopeSpans[0].spans[4]: ends before it starts"
    )
    row = Span.objects.get()
    assert row.span_id == ids[3]
    assert row.attributes == {
        "my.unknown": {"deep": [1, "two"]},
        "service.name": "agent-under-test",
    }


def test_a_partial_success_in_protobuf(agent_client: APIClient) -> None:
    bad = proto_span({"gen_ai.usage.input_tokens": float("nan")})
    response = post(agent_client, proto_body([bad]), PROTOBUF)
    answer = ExportTraceServiceResponse.FromString(response.content)
    assert response.status_code == 200
    assert answer.partial_success.rejected_spans == 1
    assert "must be an integer, got NaN" in answer.partial_success.error_message
    assert not Span.objects.exists()


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", ""])
def test_other_content_types_are_415(
    agent_client: APIClient, content_type: str
) -> None:
    response = post(agent_client, json_body([json_span()]), content_type)
    assert response.status_code == 415
    assert response.json()["code"] == 3
    assert "application/x-protobuf" in response.json()["message"]
    assert not Span.objects.exists()


def test_other_content_encodings_are_415(agent_client: APIClient) -> None:
    response = post(agent_client, b"x", JSON, HTTP_CONTENT_ENCODING="br")
    assert response.status_code == 415
    assert not Span.objects.exists()


def test_malformed_protobuf_is_400_with_a_protobuf_status(
    agent_client: APIClient,
) -> None:
    response = post(agent_client, b"\x0a\xff\xff\xff\xff\x0f", PROTOBUF)
    assert response.status_code == 400
    assert response["Content-Type"] == PROTOBUF
    status = Status.FromString(response.content)
    assert status.code == 3
    assert status.message.startswith("The body is not a valid OTLP protobuf export")
    assert not Span.objects.exists()


@pytest.mark.parametrize(
    "body", [b"{", b'{"resourceSpans": [{"scopeSpans": 1}]}', b"[1]", b"\xff"]
)
def test_malformed_json_is_400_with_a_json_status(
    agent_client: APIClient, body: bytes
) -> None:
    response = post(agent_client, body, JSON)
    assert response.status_code == 400
    assert response.json()["code"] == 3
    assert not Span.objects.exists()


def test_bad_gzip_is_400(agent_client: APIClient) -> None:
    response = post(agent_client, b"plain", JSON, HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 400
    assert response.json() == {
        "code": 3,
        "message": "The body is not valid gzip: Error -3 while decompressing data: "
        "incorrect header check.",
    }


def test_a_body_over_the_trace_limit_is_413(
    agent_client: APIClient, settings: Any
) -> None:
    settings.TRACE_MAX_BODY_BYTES = 4096
    body = json_body([json_span(span_id=s) for s in span_ids(40)])
    assert len(body) > 4096
    response = post(agent_client, body, JSON)
    assert response.status_code == 413
    assert response.json() == {
        "code": 8,
        "message": f"The body is {len(body)} bytes; this server accepts at most 4096.",
    }
    assert not Span.objects.exists()


def test_a_body_over_the_site_limit_but_within_the_trace_limit_is_taken(
    agent_client: APIClient, settings: Any
) -> None:
    settings.REQUEST_MAX_BODY_BYTES = 2048
    settings.TRACE_MAX_BODY_BYTES = 1 << 20
    body = json_body([json_span(span_id=s) for s in span_ids(40)])
    assert 2048 < len(body) < 1 << 20
    response = post(agent_client, body, JSON)
    assert response.status_code == 200, response.content
    assert Span.objects.count() == 40


def test_a_gzip_bomb_is_413(agent_client: APIClient, settings: Any) -> None:
    settings.TRACE_MAX_BODY_BYTES = 1 << 20
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = b"".join(compressor.compress(bytes(1 << 20)) for _ in range(32))
    bomb += compressor.flush()
    response = post(agent_client, bomb, PROTOBUF, HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 413
    assert "inflated" in Status.FromString(response.content).message
    assert not Span.objects.exists()


def test_a_50_mb_body_is_413_and_nothing_is_stored(agent_client: APIClient) -> None:
    body = b"\x0a" + bytes(50 * 1024 * 1024)
    response = post(agent_client, body, PROTOBUF)
    assert response.status_code == 413
    assert not Span.objects.exists()


def test_no_key_is_401(anon_client: APIClient) -> None:
    response = post(anon_client, json_body([json_span()]), JSON)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert response.json()["code"] == 16
    assert not Span.objects.exists()


def test_a_bad_key_is_401_in_the_request_encoding() -> None:
    client = key_client("es_nothing_nothing")
    response = post(client, proto_body([proto_span()]), PROTOBUF)
    assert response.status_code == 401
    assert Status.FromString(response.content).code == 16
    assert not Span.objects.exists()


def test_a_key_without_the_traces_scope_is_403(owner: Any) -> None:
    created = agent_make(owner=owner, name="streamer", scopes=[STREAM])
    response = post(key_client(created.api_key), json_body([json_span()]), JSON)
    assert response.status_code == 403
    assert response.json() == {
        "code": 7,
        "message": "This API key may not POST /v1/traces: it needs the 'traces' scope.",
    }
    assert not Span.objects.exists()


def test_a_key_no_agent_holds_is_403(owner: Any) -> None:
    created = api_key_create(name="loose", owner=owner, scopes=[TRACES])
    response = post(key_client(created.key), json_body([json_span()]), JSON)
    assert response.status_code == 403
    assert response.json()["message"] == (
        "Only an agent's API key may send spans; this key belongs to no agent."
    )
    assert not Span.objects.exists()


def test_a_session_is_not_enough(owner_client: Any) -> None:
    response = owner_client.generic(
        "POST", URL, json_body([json_span()]), content_type=JSON
    )
    assert response.status_code == 401
    assert not Span.objects.exists()


def test_get_is_405(agent_client: APIClient) -> None:
    agent_client.raise_request_exception = False
    response = agent_client.get(URL)
    assert response.status_code == 405
    assert json.loads(response.content)["code"] == 12


def test_an_exporter_that_accepts_only_protobuf_gets_protobuf(
    agent_client: APIClient,
) -> None:
    body = proto_body([proto_span()])
    accepted = post(agent_client, body, PROTOBUF, HTTP_ACCEPT=PROTOBUF)
    refused = post(agent_client, b"\x0a\xff", PROTOBUF, HTTP_ACCEPT=PROTOBUF)
    assert accepted.status_code == 200
    assert accepted["Content-Type"] == PROTOBUF
    assert refused.status_code == 400
    assert Status.FromString(refused.content).code == 3
