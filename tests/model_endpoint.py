"""A local OpenAI-compatible chat endpoint for tests that need a real HTTP
model: ``serve(Handler)`` runs it on a free loopback port and yields its
base URL; handlers subclass ``ModelHandler`` and answer with ``send_json``
(``completion(content)`` builds a chat completion body, with a ``usage``
block when given one: ``usage(...)``) or, for a request that asked for a
stream, ``send_sse`` (``stream_events(...)`` builds the server-sent events,
the usage in a last chunk of no choices as OpenAI sends it when asked with
``stream_options.include_usage``); ``answer_chat`` picks the one the
request asked for. The official ``openai`` client reads both."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def usage(
    prompt_tokens: int,
    completion_tokens: int,
    *,
    cached: int | None = None,
    reasoning: int | None = None,
) -> dict[str, Any]:
    """An OpenAI ``usage`` block (the details only when given)."""
    block: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if cached is not None:
        block["prompt_tokens_details"] = {"cached_tokens": cached}
    if reasoning is not None:
        block["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return block


def completion(
    content: Any,
    completion_id: str = "x",
    *,
    model: str | None = None,
    usage: dict[str, Any] | None = None,
    finish_reason: str | None = None,
) -> str:
    """A chat completion whose one choice says ``content``; ``model``,
    ``usage`` and ``finish_reason`` are left out unless given."""
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
    }
    if finish_reason is not None:
        choice["finish_reason"] = finish_reason
    doc: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion",
        "created": 0,
        "choices": [choice],
    }
    if model is not None:
        doc["model"] = model
    if usage is not None:
        doc["usage"] = usage
    return json.dumps(doc)


def stream_events(
    content: str,
    completion_id: str = "x",
    *,
    model: str = "",
    usage: dict[str, Any] | None = None,
    finish_reason: str = "stop",
    pieces: int = 3,
) -> str:
    """The server-sent events of a streamed completion of ``content``: a
    role chunk, ``content`` in up to ``pieces`` deltas, a chunk with the
    finish reason, the usage chunk (no choices) when ``usage`` is given,
    and ``data: [DONE]``."""

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> str:
        doc = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": choices,
            **extra,
        }
        return f"data: {json.dumps(doc)}\n\n"

    size = max(1, -(-len(content) // pieces))
    parts = [content[i : i + size] for i in range(0, len(content), size)]
    events = [chunk([{"index": 0, "delta": {"role": "assistant"}}])]
    events += [chunk([{"index": 0, "delta": {"content": p}}]) for p in parts]
    events.append(chunk([{"index": 0, "delta": {}, "finish_reason": finish_reason}]))
    if usage is not None:
        events.append(chunk([], usage=usage))
    events.append("data: [DONE]\n\n")
    return "".join(events)


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

    def send_sse(self, status: int, body: str) -> None:
        """Send ``body`` (``stream_events``) as an event stream."""
        payload = body.encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def answer_chat(
        self,
        request: dict[str, Any],
        content: str,
        *,
        model: str = "",
        usage: dict[str, Any] | None = None,
        finish_reason: str = "stop",
        completion_id: str = "x",
    ) -> None:
        """Answer ``request`` (a chat completions body) as OpenAI does: a
        stream when it asked for one (the usage only when it asked with
        ``stream_options.include_usage``), else one completion."""
        if request.get("stream"):
            options = request.get("stream_options") or {}
            self.send_sse(
                200,
                stream_events(
                    content,
                    completion_id,
                    model=model,
                    usage=usage if options.get("include_usage") else None,
                    finish_reason=finish_reason,
                ),
            )
            return
        self.send_json(
            200,
            completion(
                content,
                completion_id,
                model=model or None,
                usage=usage,
                finish_reason=finish_reason,
            ),
        )

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
