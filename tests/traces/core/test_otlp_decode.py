from __future__ import annotations

import base64
import gzip
import json
import zlib

import pytest

from tests.traces.otlp_support import (
    SPAN_ID,
    TRACE_ID,
    json_body,
    json_export,
    json_span,
    proto_body,
    proto_span,
)
from traces.core.otlp_decode import (
    ENCODING_JSON,
    ENCODING_PROTOBUF,
    BodyTooLarge,
    Undecodable,
    UnsupportedMedia,
    body_encoding,
    decode_request,
    export_from_json,
    inflate,
)


@pytest.mark.parametrize(
    ("content_type", "encoding"),
    [
        ("application/x-protobuf", ENCODING_PROTOBUF),
        ("application/protobuf", ENCODING_PROTOBUF),
        ("application/json", ENCODING_JSON),
        ("Application/JSON; charset=utf-8", ENCODING_JSON),
    ],
)
def test_content_types_of_otlp_http_are_taken(content_type: str, encoding: str) -> None:
    assert body_encoding(content_type) == encoding


@pytest.mark.parametrize("content_type", ["", "text/plain", "application/grpc"])
def test_other_content_types_are_unsupported(content_type: str) -> None:
    with pytest.raises(UnsupportedMedia, match="application/x-protobuf"):
        body_encoding(content_type)


def test_protobuf_and_json_of_one_export_decode_to_the_same_message() -> None:
    from_proto = decode_request(proto_body([proto_span()]), ENCODING_PROTOBUF)
    from_json = decode_request(json_body([json_span()]), ENCODING_JSON)
    assert from_proto.resource_spans[0].scope_spans[0].spans[0].span_id == (
        bytes.fromhex(SPAN_ID)
    )
    span_p = from_proto.resource_spans[0].scope_spans[0].spans[0]
    span_j = from_json.resource_spans[0].scope_spans[0].spans[0]
    assert span_j.trace_id == span_p.trace_id == bytes.fromhex(TRACE_ID)
    assert span_j.parent_span_id == span_p.parent_span_id
    assert span_j.start_time_unix_nano == span_p.start_time_unix_nano
    assert span_j.kind == span_p.kind == 3
    assert [a.key for a in span_j.attributes] == [a.key for a in span_p.attributes]


def test_json_ids_are_hex_not_base64_including_links() -> None:
    link_trace = "0af7651916cd43dd8448eb211c80319c"
    span = json_span(links=[{"traceId": link_trace, "spanId": "b7ad6b7169203331"}])
    request = export_from_json(json_export([span]))
    decoded = request.resource_spans[0].scope_spans[0].spans[0]
    assert decoded.links[0].trace_id == bytes.fromhex(link_trace)
    assert decoded.links[0].span_id == bytes.fromhex("b7ad6b7169203331")


def test_json_snake_case_keys_and_enum_names_are_taken() -> None:
    document = {
        "resource_spans": [
            {
                "scope_spans": [
                    {
                        "spans": [
                            {
                                "trace_id": TRACE_ID,
                                "span_id": SPAN_ID,
                                "name": "s",
                                "kind": "SPAN_KIND_SERVER",
                                "start_time_unix_nano": 5,
                                "end_time_unix_nano": 6,
                            }
                        ]
                    }
                ]
            }
        ]
    }
    span = export_from_json(document).resource_spans[0].scope_spans[0].spans[0]
    assert (span.trace_id.hex(), span.kind, span.end_time_unix_nano) == (
        TRACE_ID,
        2,
        6,
    )


def test_json_unknown_keys_are_ignored() -> None:
    document = json_export([json_span(futureField={"x": 1})])
    document["somethingNew"] = True
    request = export_from_json(document)
    assert len(request.resource_spans[0].scope_spans[0].spans) == 1


def test_json_id_that_is_not_hex_names_its_place() -> None:
    bad = base64.b64encode(bytes.fromhex(TRACE_ID)).decode()
    with pytest.raises(Undecodable) as caught:
        export_from_json(json_export([json_span(trace_id=bad)]))
    assert caught.value.message == (
        "resourceSpans[0].scopeSpans[0].spans[0].traceId must be a hex string "
        "(OTLP/JSON ids are hex, not base64)."
    )


@pytest.mark.parametrize(
    "body",
    [b"{", b"[]", b'"x"', b'{"resourceSpans": 5}', b"\xff\xfe", b"NaN"],
)
def test_malformed_json_is_undecodable(body: bytes) -> None:
    with pytest.raises(Undecodable):
        decode_request(body, ENCODING_JSON)


def test_json_nested_past_any_parser_depth_is_undecodable() -> None:
    text = '{"stringValue": "x"}'
    for _ in range(3000):
        text = '{"arrayValue": {"values": [' + text + "]}}"
    raw = json.dumps(json_export([json_span(attributes={})])).replace(
        '"attributes": []', '"attributes": [{"key": "d", "value": ' + text + "}]"
    )
    with pytest.raises(Undecodable):
        decode_request(raw.encode(), ENCODING_JSON)


@pytest.mark.parametrize(
    "body", [b"\x0a\xff\xff\xff\xff\x0f", b"garbage\xff\x00", b"\x0a\x05abc"]
)
def test_malformed_protobuf_is_undecodable(body: bytes) -> None:
    with pytest.raises(Undecodable, match="not a valid OTLP protobuf export"):
        decode_request(body, ENCODING_PROTOBUF)


def test_empty_body_is_an_empty_export() -> None:
    assert decode_request(b"", ENCODING_PROTOBUF).resource_spans == []


def test_gzip_is_inflated() -> None:
    body = proto_body([proto_span()])
    assert inflate(gzip.compress(body), "gzip", limit=10_000) == body
    assert inflate(body, "", limit=10_000) == body
    assert inflate(body, "identity", limit=10_000) == body


@pytest.mark.parametrize(
    "body", [b"not gzip", gzip.compress(b"x" * 100, mtime=0)[:-12], b"\x1f\x8b\x08\x00"]
)
def test_bad_gzip_is_undecodable(body: bytes) -> None:
    with pytest.raises(Undecodable, match="not valid gzip"):
        inflate(body, "gzip", limit=10_000)


def test_a_gzip_bomb_stops_at_the_limit() -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    bomb = b"".join(compressor.compress(chunk) for _ in range(64))
    bomb += compressor.flush()
    assert len(bomb) < 100_000  # 64 MB inflated
    with pytest.raises(BodyTooLarge, match="inflated"):
        inflate(bomb, "gzip", limit=1 << 20)


def test_a_compressed_body_over_the_limit_is_too_large() -> None:
    with pytest.raises(BodyTooLarge):
        inflate(b"x" * 2000, "", limit=1999)


def test_other_content_encodings_are_unsupported() -> None:
    with pytest.raises(UnsupportedMedia, match="Content-Encoding 'br'"):
        inflate(b"x", "br", limit=10)
