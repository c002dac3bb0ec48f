"""The hostile-input corpus of ``POST /v1/traces``
(``tests/evalsite/test_hostile_corpus.py`` holds the rest of the API's).

The endpoint speaks OTLP, not the REST schema, so the corpus's schema walk
does not reach it: its template is an OTLP/JSON export, mutated leaf by leaf
with the shared hostile values, plus the shared hostile bodies and bodies
only OTLP has (protobuf, depth, gzip). No answer may be a server error, a
refusal writes nothing, and no answer is longer than 20 kB.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from tests.evalsite.test_hostile_corpus import WriteWatch, leaf_mutations
from tests.hostile import hostile_bodies
from tests.traces.otlp_support import (
    json_body,
    json_export,
    json_span,
    proto_body,
    proto_span,
)

pytestmark = pytest.mark.django_db


def length_delimited(field: int, payload: bytes) -> bytes:
    """A protobuf length-delimited field (tag, varint length, payload)."""
    size, out = len(payload), bytearray([field << 3 | 2])
    while size > 0x7F:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    out.append(size)
    return bytes(out) + payload


def otlp_hostile_bodies() -> list[tuple[str, bytes, str, str]]:
    """(label, body, content type, content encoding) for ``POST /v1/traces``:
    protobuf that is not an export, bodies that inflate past any limit,
    nesting past the parsers' depth, ids and numbers of the wrong kind."""
    protobuf, json_type = "application/x-protobuf", "application/json"
    good = proto_body([proto_span()])
    # Nested past protobuf's parse depth; written by hand, since the message
    # classes refuse to build it.
    deep = b"\x0a\x01x"  # AnyValue{string_value: "x"}
    for _ in range(200):
        deep = length_delimited(5, length_delimited(1, deep))
    pair = length_delimited(1, b"deep") + length_delimited(2, deep)
    span = proto_span({}).SerializeToString() + length_delimited(9, pair)
    deep_export = length_delimited(1, length_delimited(2, length_delimited(2, span)))
    bomb = gzip.compress(bytes(40 << 20), compresslevel=9)
    return [
        ("random-bytes", bytes(range(256)) * 4, protobuf, ""),
        ("truncated", good[:-3], protobuf, ""),
        ("huge-length-prefix", b"\x0a\xff\xff\xff\xff\x07" + good, protobuf, ""),
        (
            "bad-utf-8-name",
            good.replace(b"chat gpt-4o-mini", b"chat \xff\xfe-4o-mini"),
            protobuf,
            "",
        ),
        ("deep-anyvalue", deep_export, protobuf, ""),
        ("json-as-protobuf", json_body([json_span()]), protobuf, ""),
        ("protobuf-as-json", good, json_type, ""),
        ("gzip-bomb", bomb, protobuf, "gzip"),
        ("bad-gzip", b"\x1f\x8b\x08\x00junk", protobuf, "gzip"),
        ("unknown-encoding", good, protobuf, "compress"),
        (
            "base64-ids",
            json_body([json_span(trace_id="W47/95gDgQPSabYzgT/GDA==")]),
            json_type,
            "",
        ),
        ("odd-hex-id", json_body([json_span(span_id="abc")]), json_type, ""),
        ("form", b"a=1", "application/x-www-form-urlencoded", ""),
    ]


def test_hostile_otlp_exports_get_no_server_error_and_refusals_write_nothing(
    agent_client: APIClient,
) -> None:
    agent_client.raise_request_exception = False
    template = json_export(
        [json_span({"gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 3})]
    )
    cases: list[tuple[str, bytes, str, str]] = [
        (label, json.dumps(body).encode(), "application/json", "")
        for label, body in leaf_mutations(template)
    ]
    cases.extend(
        (label, raw, kind, "")
        for label, raw, kind in hostile_bodies(
            template, settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        )
    )
    cases.extend(otlp_hostile_bodies())
    tally: Counter[str] = Counter()
    failures: list[str] = []
    for label, raw, content_type, encoding in cases:
        watch = WriteWatch()
        extra = {"HTTP_CONTENT_ENCODING": encoding} if encoding else {}
        with connection.execute_wrapper(watch):
            response = agent_client.generic(
                "POST", "/v1/traces", raw, content_type=content_type, **extra
            )
        tally["tried"] += 1
        if response.status_code >= 500:
            failures.append(f"/v1/traces {label}: {response.status_code}")
        elif response.status_code >= 400:
            tally["refused"] += 1
            if watch.writes:
                failures.append(f"/v1/traces {label}: wrote {watch.writes[:2]}")
        if len(response.content) > 20_000:
            failures.append(f"/v1/traces {label}: {len(response.content)}-byte answer")
    print(
        f"\nhostile OTLP corpus: {tally['tried']} requests, {tally['refused']} "
        f"refused, {tally['tried'] - tally['refused']} accepted, 0 server errors"
        if not failures
        else ""
    )
    assert not failures, "\n".join(failures)
    assert tally["refused"] > 100
