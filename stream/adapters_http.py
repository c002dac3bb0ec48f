"""OpenAI-compatible chat-completions adapter (Ollama, vLLM, llama.cpp, ...).

Not part of the pure core because it does network I/O; it implements
``stream.core.adapters.ModelAdapter`` and raises only the core's errors, so
callers handle every adapter the same way:

- ``ModelUnavailable`` when the endpoint cannot be reached, times out or keeps
  answering 5xx after the bounded retries;
- ``ModelError`` for a 4xx answer or a body that is not a completion.

Retries are immediate and bounded (``max_retries`` extra attempts, no sleep
unless ``backoff_s`` is set). The API key is sent as a bearer token and never
appears in errors. Latency is measured with the injected ``clock`` around the
whole call, retries included.

Every call is reported as a ``ModelCall``: on the ``Generation`` it returns,
or as ``call`` on the ``ModelUnavailable``/``ModelError`` it raises, so a
failed call can be stored too. With ``stream=True`` the request asks for
server-sent events with usage in the last chunk (``stream_options:
{"include_usage": true}``) and the time to the first piece of text is
measured with the same ``clock``, from the start of the call.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import httpx

from stream.core.adapters import ModelCallFailed, ModelError, ModelUnavailable
from stream.core.model_calls import PROVIDER_OPENAI, sampled_call, usage_from_openai
from stream.core.types import CallUsage, Generation, RenderedFrame, SamplerProfile

# Body excerpt kept in error messages: enough to diagnose, never a dump.
_EXCERPT = 200


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class _Answer:
    """What one successful attempt returned; ``first_token`` is the clock's
    reading when the first piece of text arrived (streaming only)."""

    text: str
    response_model: str = ""
    response_id: str = ""
    usage: CallUsage | None = None
    finish_reason: str = ""
    first_token: float | None = None


@dataclass(slots=True)
class _Attempts:
    count: int = 0


class OpenAIChatAdapter:
    """``POST {base_url}/chat/completions`` with the prompt as one user message."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 30,
        max_retries: int = 2,
        clock: Callable[[], float] = time.perf_counter,
        *,
        backoff_s: float = 0.0,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
        stream: bool = False,
        wall_clock: Callable[[], datetime] | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self._clock = clock
        self._backoff_s = backoff_s
        self._sleep = sleep
        self.stream = stream
        self._wall_clock = wall_clock or _utc_now
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=timeout_s, headers=headers, transport=transport
        )

    @property
    def model_id(self) -> str:
        return f"openai:{self.model}"

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIChatAdapter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def generate(
        self,
        prompt: str,
        *,
        sampler: SamplerProfile,
        seed: int,
        scenario_id: str | None = None,
        frame: RenderedFrame | None = None,
    ) -> Generation:
        """The first choice's message content, with the measured latency and
        the record of the call.

        ``scenario_id`` and ``frame`` are not sent: the endpoint sees exactly
        the prompt and the sampler settings (plus ``seed``, which servers that
        support it use for reproducible sampling).
        """
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": sampler.temperature,
            "top_p": sampler.top_p,
            "max_tokens": sampler.max_tokens,
            "seed": seed,
            "stream": self.stream,
        }
        if self.stream:
            body["stream_options"] = {"include_usage": True}
        call = replace(
            sampled_call(PROVIDER_OPENAI, self.model, sampler=sampler, seed=seed),
            started_at=self._wall_clock(),
            streamed=self.stream,
        )
        attempts = _Attempts()
        started = self._clock()
        try:
            answer = self._answer_with_retries(body, attempts)
        except ModelCallFailed as failed:
            latency_ms = (self._clock() - started) * 1000.0
            failed.call = replace(
                call,
                ended_at=self._wall_clock(),
                latency_ms=latency_ms,
                retries=max(attempts.count - 1, 0),
                error=f"{failed.code}: {failed.message}",
            )
            raise
        latency_ms = (self._clock() - started) * 1000.0
        ttft_ms = (
            (answer.first_token - started) * 1000.0
            if answer.first_token is not None
            else None
        )
        return Generation(
            answer.text,
            latency_ms,
            replace(
                call,
                response_model=answer.response_model,
                response_id=answer.response_id,
                usage=answer.usage,
                ended_at=self._wall_clock(),
                latency_ms=latency_ms,
                ttft_ms=ttft_ms,
                finish_reason=answer.finish_reason,
                retries=attempts.count - 1,
            ),
        )

    def _answer_with_retries(
        self, body: dict[str, Any], attempts: _Attempts
    ) -> _Answer:
        most = self.max_retries + 1
        failure = ""
        for attempt in range(1, most + 1):
            attempts.count = attempt
            if attempt > 1 and self._backoff_s > 0:
                self._sleep(self._backoff_s * (attempt - 1))
            try:
                if self.stream:
                    with self._client.stream("POST", self.url, json=body) as response:
                        retry = self._refused(response)
                        if retry is None:
                            return self._streamed_answer(response)
                        failure = retry
                        continue
                response = self._client.post(self.url, json=body)
            except httpx.TimeoutException:
                failure = f"timed out after {self.timeout_s:g}s"
                continue
            except httpx.TransportError as exc:
                failure = f"connection failed ({type(exc).__name__})"
                continue
            retry = self._refused(response)
            if retry is None:
                return _answer(response, self.url)
            failure = retry
        raise ModelUnavailable(
            f"model endpoint {self.url} unavailable after {most} attempts: {failure}",
            details={"url": self.url, "attempts": most, "reason": failure},
        )

    def _refused(self, response: httpx.Response) -> str | None:
        """``None`` for a 2xx/3xx answer, the reason to retry for a 5xx;
        raises ``ModelError`` for a 4xx (retrying would not change it)."""
        if response.status_code >= 500:
            return f"HTTP {response.status_code}"
        if response.status_code >= 400:
            response.read()
            raise ModelError(
                f"model endpoint {self.url} answered HTTP "
                f"{response.status_code}: {response.text[:_EXCERPT]}",
                details={"url": self.url, "status": response.status_code},
            )
        return None

    def _streamed_answer(self, response: httpx.Response) -> _Answer:
        """Read the server-sent events of a streamed completion: the text of
        choice 0's deltas, the last finish reason, and the usage of the
        final chunk. A body that is not such a stream is a ``ModelError``."""
        answer = _Answer("")
        pieces: list[str] = []
        saw_choice = False
        for line in response.iter_lines():
            if not line.startswith("data:"):
                continue  # blank separators, comments, event names
            data = line[len("data:") :].strip()
            if data == "[DONE]":
                break
            chunk = _stream_chunk(data, self.url, response.status_code)
            answer.response_model = _text(chunk.get("model")) or answer.response_model
            answer.response_id = _text(chunk.get("id")) or answer.response_id
            if chunk.get("usage") is not None:
                answer.usage = usage_from_openai(chunk["usage"])
            for choice in chunk.get("choices") or ():
                if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                    continue
                saw_choice = True
                delta = choice.get("delta")
                content = delta.get("content") if isinstance(delta, dict) else None
                if isinstance(content, str) and content:
                    if answer.first_token is None:
                        answer.first_token = self._clock()
                    pieces.append(content)
                answer.finish_reason = (
                    _text(choice.get("finish_reason")) or answer.finish_reason
                )
        if not saw_choice:
            raise ModelError(
                f"model endpoint {self.url} streamed no completion",
                details={"url": self.url, "status": response.status_code},
            )
        answer.text = "".join(pieces)
        return answer


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _stream_chunk(data: str, url: str, status: int) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except ValueError as exc:
        raise ModelError(
            f"model endpoint {url} streamed an event that is not JSON: "
            f"{data[:_EXCERPT]}",
            details={"url": url, "status": status},
        ) from exc
    if not isinstance(chunk, dict):
        raise ModelError(
            f"model endpoint {url} streamed an event that is not an object",
            details={"url": url, "status": status},
        )
    if "error" in chunk:
        raise ModelError(
            f"model endpoint {url} streamed an error: "
            f"{json.dumps(chunk['error'])[:_EXCERPT]}",
            details={"url": url, "status": status},
        )
    return chunk


def _answer(response: httpx.Response, url: str) -> _Answer:
    try:
        doc = response.json()
        choice = doc["choices"][0]
        content = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ModelError(
            f"model endpoint {url} returned no completion: {response.text[:_EXCERPT]}",
            details={"url": url, "status": response.status_code},
        ) from exc
    if not isinstance(content, str):
        raise ModelError(
            f"model endpoint {url} returned non-text content",
            details={"url": url, "status": response.status_code},
        )
    return _Answer(
        content,
        response_model=_text(doc.get("model")),
        response_id=_text(doc.get("id")),
        usage=usage_from_openai(doc.get("usage")),
        finish_reason=_text(choice.get("finish_reason")),
    )
