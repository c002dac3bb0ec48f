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
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from stream.core.adapters import ModelError, ModelUnavailable
from stream.core.types import Generation, RenderedFrame, SamplerProfile

# Body excerpt kept in error messages: enough to diagnose, never a dump.
_EXCERPT = 200


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
        """The first choice's message content, with the measured latency.

        ``scenario_id`` and ``frame`` are not sent: the endpoint sees exactly
        the prompt and the sampler settings (plus ``seed``, which servers that
        support it use for reproducible sampling).
        """
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": sampler.temperature,
            "top_p": sampler.top_p,
            "max_tokens": sampler.max_tokens,
            "seed": seed,
            "stream": False,
        }
        started = self._clock()
        response = self._post_with_retries(body)
        latency_ms = (self._clock() - started) * 1000.0
        return Generation(_completion_text(response, self.url), latency_ms)

    def _post_with_retries(self, body: dict[str, Any]) -> httpx.Response:
        attempts = self.max_retries + 1
        failure = ""
        for attempt in range(1, attempts + 1):
            if attempt > 1 and self._backoff_s > 0:
                self._sleep(self._backoff_s * (attempt - 1))
            try:
                response = self._client.post(self.url, json=body)
            except httpx.TimeoutException:
                failure = f"timed out after {self.timeout_s:g}s"
                continue
            except httpx.TransportError as exc:
                failure = f"connection failed ({type(exc).__name__})"
                continue
            if response.status_code >= 500:
                failure = f"HTTP {response.status_code}"
                continue
            if response.status_code >= 400:
                raise ModelError(
                    f"model endpoint {self.url} answered HTTP "
                    f"{response.status_code}: {response.text[:_EXCERPT]}",
                    details={"url": self.url, "status": response.status_code},
                )
            return response
        raise ModelUnavailable(
            f"model endpoint {self.url} unavailable after {attempts} attempts: "
            f"{failure}",
            details={"url": self.url, "attempts": attempts, "reason": failure},
        )


def _completion_text(response: httpx.Response, url: str) -> str:
    try:
        doc = response.json()
        content = doc["choices"][0]["message"]["content"]
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
    return content
