"""A local OTLP/HTTP receiver for the score export's tests.

It listens on a free loopback port in a thread, decodes each body with the
official ``ExportLogsServiceRequest`` (or ``ExportTraceServiceRequest`` for
a ``/v1/traces`` path) and answers with the statuses it was given in turn
(the last one repeats). Nothing leaves the machine.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    request: Any

    def events(self) -> list[dict[str, Any]]:
        """Each log record's (or span event's) attributes as a dict, with
        the trace id of the record (or span)."""
        out = []
        if isinstance(self.request, ExportTraceServiceRequest):
            for resource_spans in self.request.resource_spans:
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        for event in span.events:
                            out.append(_attributes(event, span.trace_id))
            return out
        for resource_logs in self.request.resource_logs:
            for scope_logs in resource_logs.scope_logs:
                for record in scope_logs.log_records:
                    out.append(_attributes(record, record.trace_id))
        return out


def _attributes(item: Any, trace_id: bytes) -> dict[str, Any]:
    found: dict[str, Any] = {"trace_id": trace_id.hex()}
    for pair in item.attributes:
        found[pair.key] = getattr(pair.value, pair.value.WhichOneof("value"))
    return found


@dataclass
class Receiver:
    url: str
    answers: list[int]
    received: list[Received] = field(default_factory=list)


@contextmanager
def otlp_receiver(*answers: int, path: str = "/v1/logs") -> Iterator[Receiver]:
    """A receiver at ``path`` answering ``answers`` in turn (200 when none
    given)."""
    receiver = Receiver(url="", answers=list(answers) or [200])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            receiver.received.append(
                Received(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    request=(
                        ExportTraceServiceRequest
                        if self.path.endswith("/v1/traces")
                        else ExportLogsServiceRequest
                    ).FromString(body),
                )
            )
            index = min(len(receiver.received), len(receiver.answers)) - 1
            status = receiver.answers[index]
            self.send_response(status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            if status in (429, 503):
                self.send_header("Retry-After", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}{path}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
