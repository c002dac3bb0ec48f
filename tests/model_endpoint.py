"""A local OpenAI-compatible chat endpoint for tests that need a real HTTP
model: ``serve(Handler)`` runs it on a free loopback port and yields its
base URL; handlers subclass ``ModelHandler`` and answer with ``send_json``
(``completion(content)`` builds a chat completion body)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(content: Any, completion_id: str = "x") -> str:
    """A chat completion whose one choice says ``content``."""
    return json.dumps(
        {
            "id": completion_id,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}}
            ],
        }
    )


class ModelHandler(BaseHTTPRequestHandler):
    """Quiet request handler with a JSON answer that tolerates a client that
    has gone (a timed-out adapter, a killed worker)."""

    def read_body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def send_json(self, status: int, body: str) -> None:
        payload = body.encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 (a free port); yields ``http://…/v1``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host!s}:{port}/v1"
    finally:
        server.shutdown()
        server.server_close()
