"""OpenAIChatAdapter against a real HTTP server started by the test."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.errors import CoreError
from stream.adapters_http import OpenAIChatAdapter
from stream.core.adapters import SAMPLERS, ModelAdapter, ModelError, ModelUnavailable
from stream.core.types import Generation
from tests.model_endpoint import ModelHandler, completion, serve


@dataclass
class Script:
    """What the fake endpoint answers, one entry per request (last repeats)."""

    answers: list[tuple[int, str]] = field(default_factory=list)
    delay_s: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def endpoint() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(ModelHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            script.requests.append(
                {
                    "path": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "body": json.loads(self.read_body()),
                }
            )
            if script.delay_s:
                time.sleep(script.delay_s)
            index = min(len(script.requests), len(script.answers)) - 1
            self.send_json(*script.answers[index])

    with serve(Handler) as url:
        yield url, script


def _clock() -> Any:
    ticks = iter(range(100))
    return lambda: next(ticks) * 0.125


def test_completion_is_returned_with_measured_latency(
    endpoint: tuple[str, Script],
) -> None:
    url, script = endpoint
    script.answers = [(200, completion("I see a cow. [GOAL: find cow]"))]
    with OpenAIChatAdapter(
        url + "/", "llama3", api_key="sk-test", clock=_clock()
    ) as adapter:
        result = adapter.generate("PROMPT", sampler=SAMPLERS["creative"], seed=11)
    assert result == Generation("I see a cow. [GOAL: find cow]", 125.0)
    [request] = script.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["authorization"] == "Bearer sk-test"
    assert request["body"] == {
        "model": "llama3",
        "messages": [{"role": "user", "content": "PROMPT"}],
        "temperature": 0.9,
        "top_p": 1.0,
        "max_tokens": 768,
        "seed": 11,
        "stream": False,
    }


def test_no_api_key_sends_no_authorization(endpoint: tuple[str, Script]) -> None:
    url, script = endpoint
    script.answers = [(200, completion("ok"))]
    with OpenAIChatAdapter(url, "m") as adapter:
        adapter.generate("p", sampler=SAMPLERS["standard"], seed=1)
    assert script.requests[0]["authorization"] is None


def test_5xx_is_retried_then_succeeds(endpoint: tuple[str, Script]) -> None:
    url, script = endpoint
    script.answers = [(503, "busy"), (500, "oops"), (200, completion("fine"))]
    with OpenAIChatAdapter(url, "m", max_retries=2) as adapter:
        assert (
            adapter.generate("p", sampler=SAMPLERS["standard"], seed=1).text == "fine"
        )
    assert len(script.requests) == 3


def test_persistent_5xx_is_model_unavailable_after_bounded_attempts(
    endpoint: tuple[str, Script],
) -> None:
    url, script = endpoint
    script.answers = [(502, "bad gateway")]
    with (
        OpenAIChatAdapter(url, "m", max_retries=2) as adapter,
        pytest.raises(ModelUnavailable) as raised,
    ):
        adapter.generate("p", sampler=SAMPLERS["standard"], seed=1)
    assert len(script.requests) == 3
    assert raised.value.code == "model_unavailable"
    assert raised.value.message == (
        f"model endpoint {url}/chat/completions unavailable after 3 attempts: HTTP 502"
    )


def test_4xx_is_a_model_error_without_retry(endpoint: tuple[str, Script]) -> None:
    url, script = endpoint
    script.answers = [(404, '{"error": "model not found"}')]
    with (
        OpenAIChatAdapter(url, "m", api_key="sk-secret") as adapter,
        pytest.raises(ModelError) as raised,
    ):
        adapter.generate("p", sampler=SAMPLERS["standard"], seed=1)
    assert len(script.requests) == 1
    assert raised.value.details == {"url": f"{url}/chat/completions", "status": 404}
    assert "model not found" in raised.value.message
    assert "sk-secret" not in raised.value.message


@pytest.mark.parametrize(
    "body", ["not json", json.dumps({"choices": []}), completion(None), completion(5)]
)
def test_body_without_a_text_completion_is_a_model_error(
    endpoint: tuple[str, Script], body: str
) -> None:
    url, script = endpoint
    script.answers = [(200, body)]
    with OpenAIChatAdapter(url, "m") as adapter, pytest.raises(ModelError):
        adapter.generate("p", sampler=SAMPLERS["standard"], seed=1)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_connection_refused_is_model_unavailable_after_retries() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    sleeps: list[float] = []
    adapter = OpenAIChatAdapter(
        url, "m", max_retries=2, backoff_s=0.5, sleep=sleeps.append
    )
    with adapter, pytest.raises(ModelUnavailable) as raised:
        adapter.generate("p", sampler=SAMPLERS["standard"], seed=1)
    assert isinstance(raised.value, CoreError)
    assert raised.value.message == (
        f"model endpoint {url}/chat/completions unavailable after 3 attempts: "
        "connection failed (ConnectError)"
    )
    assert raised.value.details["attempts"] == 3
    assert sleeps == [0.5, 1.0]


def test_timeout_is_model_unavailable(endpoint: tuple[str, Script]) -> None:
    url, script = endpoint
    script.answers = [(200, completion("too late"))]
    script.delay_s = 0.5
    with (
        OpenAIChatAdapter(url, "m", timeout_s=0.1, max_retries=1) as adapter,
        pytest.raises(ModelUnavailable) as raised,
    ):
        adapter.generate("p", sampler=SAMPLERS["standard"], seed=1)
    assert raised.value.details["reason"] == "timed out after 0.1s"
    assert len(script.requests) == 2


def test_negative_retries_are_refused() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        OpenAIChatAdapter("http://127.0.0.1:1", "m", max_retries=-1)


def test_is_a_model_adapter() -> None:
    adapter: ModelAdapter = OpenAIChatAdapter("http://127.0.0.1:1", "qwen")
    assert adapter.model_id == "openai:qwen"
