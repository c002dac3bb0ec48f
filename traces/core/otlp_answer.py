"""The answers of ``POST /v1/traces``, in the request's encoding.

Success is an ``ExportTraceServiceResponse``, with ``partial_success``
(``rejected_spans`` and an ``error_message`` naming the first few reasons)
when some spans were refused; a refusal is a ``google.rpc.Status`` (``code``
from google.rpc.Code, ``message``), as OTLP/HTTP asks
(https://opentelemetry.io/docs/specs/otlp/#failures). JSON answers use the
OTLP/JSON mapping (lowerCamelCase keys, int64 as strings). Deterministic,
no I/O.

``google.rpc.Status`` ships in googleapis-common-protos, which evalsite
does not depend on; its three fields are declared here, in a descriptor
pool of their own so that they never clash with that package's copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import orjson
from google.protobuf import descriptor_pb2, descriptor_pool, json_format
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)

from traces.core.otlp_decode import ENCODING_JSON

# google.rpc.Code values for the HTTP statuses this endpoint answers.
RPC_INVALID_ARGUMENT: Final = 3
RPC_PERMISSION_DENIED: Final = 7
RPC_RESOURCE_EXHAUSTED: Final = 8
RPC_INTERNAL: Final = 13
RPC_UNAVAILABLE: Final = 14
RPC_UNAUTHENTICATED: Final = 16
RPC_UNIMPLEMENTED: Final = 12
RPC_CODES: Final = {
    400: RPC_INVALID_ARGUMENT,
    401: RPC_UNAUTHENTICATED,
    403: RPC_PERMISSION_DENIED,
    404: RPC_UNIMPLEMENTED,
    405: RPC_UNIMPLEMENTED,
    406: RPC_INVALID_ARGUMENT,
    413: RPC_RESOURCE_EXHAUSTED,
    415: RPC_INVALID_ARGUMENT,
    429: RPC_RESOURCE_EXHAUSTED,
    503: RPC_UNAVAILABLE,
}
# How many rejection reasons the partial-success message lists.
REASONS_SHOWN: Final = 5
MESSAGE_MAX_CHARS: Final = 1000


def _status_class() -> type[Message]:
    file = descriptor_pb2.FileDescriptorProto(
        name="evalsite/google_rpc_status.proto", package="google.rpc", syntax="proto3"
    )
    message = file.message_type.add(name="Status")
    field = descriptor_pb2.FieldDescriptorProto
    message.field.add(
        name="code", number=1, type=field.TYPE_INT32, label=field.LABEL_OPTIONAL
    )
    message.field.add(
        name="message", number=2, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    found: type[Message] = GetMessageClass(
        pool.FindMessageTypeByName("google.rpc.Status")
    )
    return found


Status: Final = _status_class()


def _encode(message: Message, encoding: str) -> bytes:
    if encoding == ENCODING_JSON:
        document: dict[str, Any] = json_format.MessageToDict(message)
        return orjson.dumps(document)
    encoded: bytes = message.SerializeToString()
    return encoded


def rejection_message(reasons: Sequence[str], rejected: int) -> str:
    """The partial-success message: the first ``REASONS_SHOWN`` reasons and
    how many more there were."""
    shown = list(reasons[:REASONS_SHOWN])
    text = "; ".join(shown)
    if rejected > len(shown):
        text += f"; and {rejected - len(shown)} more"
    return f"{rejected} span(s) rejected: {text}"[:MESSAGE_MAX_CHARS]


def export_response(*, rejected: int, reasons: Sequence[str], encoding: str) -> bytes:
    """The success answer; ``partial_success`` set only when spans were
    rejected (an empty one means full success, as the spec says)."""
    response = ExportTraceServiceResponse()
    if rejected:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = rejection_message(reasons, rejected)
    return _encode(response, encoding)


def status_body(http_status: int, message: str, encoding: str) -> bytes:
    """A refusal: ``google.rpc.Status`` with the code for ``http_status``."""
    status = Status(
        code=RPC_CODES.get(http_status, RPC_INTERNAL),
        message=message[:MESSAGE_MAX_CHARS],
    )
    return _encode(status, encoding)
