"""OTLP/HTTP trace bodies into ``ExportTraceServiceRequest`` messages.

``decode_body`` takes the body as it came over the wire, the request's
``Content-Type`` and ``Content-Encoding``, and gives the official
``opentelemetry-proto`` message: protobuf bodies through the message's own
parser, JSON bodies through ``google.protobuf.json_format.ParseDict`` after
the two changes OTLP/JSON makes to the protobuf JSON mapping
(https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
``traceId``, ``spanId`` and ``parentSpanId`` (of spans and of their links)
are hex strings, not base64; enums are integers (names are taken too).
Keys may be lowerCamelCase or the proto's snake_case; unknown keys are
ignored, as the spec asks of receivers.

A gzip body is inflated at most to ``limit`` bytes: a gzip bomb stops there
(``BodyTooLarge``) instead of filling memory. Every refusal is one of three
exceptions, each worded for the client: ``UnsupportedMedia`` (415),
``BodyTooLarge`` (413), ``Undecodable`` (400). Deterministic, no I/O.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any, Final

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)

ENCODING_PROTOBUF: Final = "protobuf"
ENCODING_JSON: Final = "json"
MEDIA_TYPES: Final = {
    "application/x-protobuf": ENCODING_PROTOBUF,
    "application/protobuf": ENCODING_PROTOBUF,
    "application/json": ENCODING_JSON,
}
CONTENT_TYPES: Final = {
    ENCODING_PROTOBUF: "application/x-protobuf",
    ENCODING_JSON: "application/json",
}
# Content-Encoding values taken: none, or gzip.
IDENTITY: Final = ("", "identity")
GZIP: Final = "gzip"

# The id fields OTLP/JSON writes as hex, under either spelling of their key.
_ID_KEYS: Final = (
    ("traceId", "trace_id"),
    ("spanId", "span_id"),
    ("parentSpanId", "parent_span_id"),
)
_INFLATE_STEP: Final = 1 << 16


class OtlpRefused(ValueError):
    """A body this receiver does not take; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnsupportedMedia(OtlpRefused):
    """A content type or content encoding OTLP/HTTP does not define."""


class BodyTooLarge(OtlpRefused):
    """The body, compressed or inflated, is longer than the limit."""


class Undecodable(OtlpRefused):
    """Bad gzip, malformed protobuf or JSON, or JSON that is no export."""


def body_encoding(content_type: str) -> str:
    """``ENCODING_PROTOBUF`` or ``ENCODING_JSON`` for a ``Content-Type``
    header (parameters such as ``charset`` ignored); ``UnsupportedMedia``
    for anything else."""
    media = content_type.split(";", 1)[0].strip().lower()
    encoding = MEDIA_TYPES.get(media)
    if encoding is None:
        shown = media[:100] or "none"
        raise UnsupportedMedia(
            f"Content-Type {shown!r} is not accepted; send application/x-protobuf "
            "or application/json."
        )
    return encoding


def inflate(body: bytes, content_encoding: str, *, limit: int) -> bytes:
    """``body`` without its ``Content-Encoding`` (none or gzip), at most
    ``limit`` bytes long; the three refusals as the module docstring says."""
    coding = content_encoding.strip().lower()
    if len(body) > limit:
        raise BodyTooLarge(_too_large(limit))
    if coding in IDENTITY:
        return body
    if coding != GZIP:
        raise UnsupportedMedia(
            f"Content-Encoding {coding[:40]!r} is not accepted; send gzip or none."
        )
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
    parts: list[bytes] = []
    size = 0
    pending = body
    try:
        while True:
            chunk = inflater.decompress(pending, _INFLATE_STEP)
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge(_too_large(limit, inflated=True))
            parts.append(chunk)
            pending = inflater.unconsumed_tail
            if not pending:
                break
        tail = inflater.flush()
    except zlib.error as exc:
        raise Undecodable(f"The body is not valid gzip: {exc}.") from None
    size += len(tail)
    if size > limit:
        raise BodyTooLarge(_too_large(limit, inflated=True))
    if not inflater.eof:
        raise Undecodable("The body is not valid gzip: the stream is cut short.")
    parts.append(tail)
    return b"".join(parts)


def _too_large(limit: int, *, inflated: bool = False) -> str:
    what = "The body, inflated," if inflated else "The body"
    return f"{what} is longer than {limit} bytes, the most this server accepts."


def decode_request(body: bytes, encoding: str) -> ExportTraceServiceRequest:
    """The export in ``body`` (already inflated); ``Undecodable`` naming the
    problem when it is not one."""
    if encoding == ENCODING_PROTOBUF:
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except (DecodeError, RecursionError, ValueError) as exc:
            raise Undecodable(
                f"The body is not a valid OTLP protobuf export: {exc}."
            ) from None
        return request
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Undecodable(f"The body is not valid JSON: {exc}.") from None
    return export_from_json(document)


def export_from_json(document: Any) -> ExportTraceServiceRequest:
    """An OTLP/JSON document (parsed) as the protobuf message."""
    if not isinstance(document, dict):
        raise Undecodable("The JSON body must be an object with resourceSpans.")
    _check_shape(document, ExportTraceServiceRequest.DESCRIPTOR, "", 0)
    converted = _with_base64_ids(document)
    request = ExportTraceServiceRequest()
    try:
        json_format.ParseDict(converted, request, ignore_unknown_fields=True)
    except (json_format.ParseError, RecursionError, ValueError, TypeError) as exc:
        raise Undecodable(f"The JSON body is not a valid OTLP export: {exc}") from None
    return request


# Deeper than any export an SDK sends (AnyValue lists nest), shallow enough
# for the stack.
_MAX_DEPTH: Final = 64


def _check_shape(
    value: dict[str, Any], descriptor: Any, where: str, depth: int
) -> None:
    """Refuse a non-object where a message belongs, and a non-array where a
    repeated message belongs (``json_format.ParseDict`` reads either as an
    empty message), walking ``value`` along ``descriptor``."""
    if depth > _MAX_DEPTH:
        raise Undecodable(f"The JSON body nests deeper than {_MAX_DEPTH} levels.")
    for key, item in value.items():
        field = descriptor.fields_by_camelcase_name.get(
            key
        ) or descriptor.fields_by_name.get(key)
        if field is None or field.message_type is None or item is None:
            continue
        at = f"{where}.{key}" if where else key
        # protobuf >= 5.28 says is_repeated; older releases only the label.
        repeated = (
            field.is_repeated
            if hasattr(field, "is_repeated")
            else field.label == field.LABEL_REPEATED
        )
        if repeated:
            if not isinstance(item, list):
                raise Undecodable(f"{at} must be an array.")
            for index, element in enumerate(item):
                _check_shape(
                    _object(element, f"{at}[{index}]"),
                    field.message_type,
                    f"{at}[{index}]",
                    depth + 1,
                )
        else:
            _check_shape(_object(item, at), field.message_type, at, depth + 1)


def _with_base64_ids(document: dict[str, Any]) -> dict[str, Any]:
    """A shallow copy of ``document`` down to the spans and links, their hex
    ids as base64 (the protobuf JSON mapping of ``bytes``)."""
    out = dict(document)
    resource_spans = _list_at(out, "resourceSpans", "resource_spans", where="")
    if resource_spans is None:
        return out
    copied_rs: list[Any] = []
    for r_index, resource in enumerate(resource_spans):
        resource = dict(_object(resource, f"resourceSpans[{r_index}]"))
        scopes = _list_at(
            resource, "scopeSpans", "scope_spans", where=f"resourceSpans[{r_index}]."
        )
        if scopes is not None:
            copied_scopes: list[Any] = []
            for s_index, scope in enumerate(scopes):
                where = f"resourceSpans[{r_index}].scopeSpans[{s_index}]"
                copied_scopes.append(_scope_with_base64_ids(scope, where))
            _put(resource, ("scopeSpans", "scope_spans"), copied_scopes)
        copied_rs.append(resource)
    _put(out, ("resourceSpans", "resource_spans"), copied_rs)
    return out


def _scope_with_base64_ids(scope: Any, where: str) -> Any:
    scope = dict(_object(scope, where))
    spans = _list_at(scope, "spans", where=f"{where}.")
    if spans is None:
        return scope
    copied: list[Any] = []
    for index, span in enumerate(spans):
        at = f"{where}.spans[{index}]"
        span = _ids_to_base64(_object(span, at), at)
        links = _list_at(span, "links", where=f"{at}.")
        if links is not None:
            span["links"] = [
                _ids_to_base64(_object(link, f"{at}.links[{n}]"), f"{at}.links[{n}]")
                for n, link in enumerate(links)
            ]
        copied.append(span)
    scope["spans"] = copied
    return scope


def _ids_to_base64(item: dict[str, Any], where: str) -> dict[str, Any]:
    item = dict(item)
    for keys in _ID_KEYS:
        for key in keys:
            value = item.get(key)
            if isinstance(value, str):
                item[key] = _hex_to_base64(value, f"{where}.{keys[0]}")
    return item


def _hex_to_base64(value: str, where: str) -> str:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise Undecodable(
            f"{where} must be a hex string (OTLP/JSON ids are hex, not base64)."
        ) from None
    return base64.b64encode(raw).decode("ascii")


def _object(value: Any, where: str) -> dict[str, Any]:
    """``value`` when it is a JSON object; ``Undecodable`` naming ``where``."""
    if not isinstance(value, dict):
        raise Undecodable(f"{where} must be an object.")
    return value


def _list_at(mapping: dict[str, Any], *keys: str, where: str) -> list[Any] | None:
    """The array under the first of ``keys`` present (None when none is, or
    it is null); ``Undecodable`` when it is something else."""
    for key in keys:
        value = mapping.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise Undecodable(f"{where}{keys[0]} must be an array.")
        return value
    return None


def _put(mapping: dict[str, Any], keys: tuple[str, str], value: Any) -> None:
    for key in keys:
        if key in mapping:
            mapping[key] = value
            return
