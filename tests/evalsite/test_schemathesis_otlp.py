"""Schemathesis over OTLP ingestion (``POST /v1/traces``), in-process.

The endpoint is not in the API's OpenAPI schema: it speaks OTLP/HTTP
(protobuf or OTLP/JSON in, an ``ExportTraceServiceResponse`` or a
``google.rpc.Status`` out, in the request's encoding), not the API's
conventions. It is checked against the schema below instead, which states
the structure the decoder takes (``traces.core.otlp_decode``): the export's
nesting down to a span's ids and name, hex ids (ASCII whitespace between
byte pairs is tolerated, as ``bytes.fromhex`` does), null as absent, unknown
keys ignored. Data the schema calls valid is stored or rejected span by span
(200, partial success); data it calls invalid never makes a server error
and is answered only as declared. The protobuf encoding sends the same
documents encoded with the official messages, and bytes that are no
protobuf for the invalid ones.

``json_format.ParseDict`` alone reads a string or an array where a message
belongs as an empty message (it iterates it for field names); the decoder
walks the document along the messages first and refuses those, which the
last test holds. Negative data is still not required to be refused as a
whole: the decoder ignores unknown keys, which the schema may call invalid.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi import checks

from evalsite.wsgi import application
from traces.core.otlp_decode import Undecodable, export_from_json

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "6"))
PROTOBUF = "application/x-protobuf"
# What bytes.fromhex takes: byte pairs, ASCII whitespace around them.
WS = r"[ \t\n\r\x0b\x0c]"
HEX: dict[str, Any] = {
    "type": "string",
    "nullable": True,
    "pattern": f"^{WS}*([0-9a-fA-F]{{2}}{WS}*)*$",
}
TEXT: dict[str, Any] = {"type": "string", "nullable": True}


def _list_of(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "nullable": True, "items": item}


SPAN = {
    "type": "object",
    "properties": {
        "traceId": HEX,
        "spanId": HEX,
        "parentSpanId": HEX,
        "name": TEXT,
    },
}
EXPORT = {
    "type": "object",
    "properties": {
        "resourceSpans": _list_of(
            {
                "type": "object",
                "properties": {
                    "scopeSpans": _list_of(
                        {"type": "object", "properties": {"spans": _list_of(SPAN)}}
                    )
                },
            }
        )
    },
}
EXPORT_RESPONSE = {
    "type": "object",
    "properties": {
        "partialSuccess": {
            "type": "object",
            "properties": {
                "rejectedSpans": {"type": "string", "pattern": "^[0-9]+$"},
                "errorMessage": {"type": "string"},
            },
            "additionalProperties": False,
        }
    },
    "additionalProperties": False,
}
STATUS = {
    "type": "object",
    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
    "additionalProperties": False,
}
BINARY = {"type": "string", "format": "binary"}


def otlp_schema(media_type: str) -> dict[str, Any]:
    """The OTLP endpoint with ``media_type`` bodies; every answer in either
    encoding (a refusal is in the request's, JSON when it cannot be told)."""

    def answer(schema: dict[str, Any], description: str) -> dict[str, Any]:
        return {
            "description": description,
            "content": {
                "application/json": {"schema": schema},
                PROTOBUF: {"schema": BINARY},
            },
        }

    refusals = {
        "400": "not an OTLP export",
        "401": "no or unknown API key",
        "403": "the key has no traces scope",
        "413": "the body is too large",
        "415": "not protobuf or JSON",
        "429": "throttled",
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "OTLP/HTTP traces", "version": "1"},
        "components": {
            "securitySchemes": {"agentApiKey": {"type": "http", "scheme": "bearer"}}
        },
        "security": [{"agentApiKey": []}],
        "paths": {
            "/v1/traces": {
                "post": {
                    "operationId": "otlp_traces_export",
                    "requestBody": {
                        "required": True,
                        "content": {media_type: {"schema": EXPORT}},
                    },
                    "responses": {
                        "200": answer(
                            EXPORT_RESPONSE,
                            "stored; partialSuccess counts the spans rejected",
                        ),
                        **{
                            code: answer(STATUS, text)
                            for code, text in refusals.items()
                        },
                    },
                }
            }
        },
    }


# No protobuf document can be shorter than the length its first field declares.
NOT_PROTOBUF = b"\x0a\xff\xff\xff\xff\x07"


@schemathesis.serializer(PROTOBUF)
def protobuf_body(ctx: Any, value: Any) -> bytes:
    """The document as the official message's bytes; a document that is
    not an export as bytes that are not one either."""
    try:
        return export_from_json(value).SerializeToString()
    except Undecodable:
        return NOT_PROTOBUF + repr(value).encode()[:64]


CONFORMANCE = [
    not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
    checks.ignored_auth,
]
CHECKS = {
    GenerationMode.POSITIVE: [*CONFORMANCE, checks.positive_data_acceptance],
    # Not negative_data_rejection: see the module docstring.
    GenerationMode.NEGATIVE: CONFORMANCE,
}
CONFIG: dict[str, Any] = {"generation": {"allow-x00": False, "codec": "utf-8"}}


@pytest.fixture
def in_process_app(settings: Any) -> Any:
    settings.ALLOWED_HOSTS = ["*"]
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def explore(operation: Any, mode: GenerationMode, api_key: str) -> None:
    """EXAMPLES requests of ``mode`` with the agent's key, each judged by
    the checks of its mode."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        case.call_and_validate(
            headers={"Authorization": f"Bearer {api_key}"}, checks=CHECKS[mode]
        )

    check()


@pytest.mark.parametrize("media_type", ["application/json", PROTOBUF])
def test_otlp_ingestion_keeps_its_contract(
    in_process_app: Any, api_key: str, media_type: str
) -> None:
    schema = schemathesis.openapi.from_dict(
        otlp_schema(media_type), config=SchemathesisConfig.from_dict(CONFIG)
    )
    schema.app = in_process_app
    (operation,) = [result.ok() for result in schema.get_all_operations()]
    failures: dict[str, str] = {}
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
        try:
            explore(operation, mode, api_key)
        except (AssertionError, BaseExceptionGroup) as error:
            failures[mode.value] = str(error)[:1500]
    assert not failures, "\n\n".join(f"{k}: {v}" for k, v in failures.items())


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ({"resourceSpans": [{"scopeSpans": ["x"]}]}, "scopeSpans[0] must be an"),
        ({"resourceSpans": [{"scopeSpans": [{"spans": [[]]}]}]}, "spans[0] must be"),
        ({"resourceSpans": [{"resource": "x"}]}, "resource must be an object"),
        ({"resourceSpans": {"x": 1}}, "resourceSpans must be an array"),
    ],
)
def test_a_non_object_where_a_message_belongs_is_refused(
    document: Any, reason: str
) -> None:
    # json_format.ParseDict alone reads these as empty messages.
    with pytest.raises(Undecodable, match=re.escape(reason)):
        export_from_json(document)
