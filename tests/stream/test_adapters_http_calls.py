"""OpenAIChatAdapter's record of each call (ModelCall): usage, models,
timings, retries and errors, plain and streamed; with httpx.MockTransport,
against the local OpenAI-compatible test server, and that server read by
the official ``openai`` client (so the server is OpenAI-compatible and the
adapter reads what OpenAI sends)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from stream.adapters_http import OpenAIChatAdapter
from stream.core.adapters import SAMPLERS, ModelError, ModelUnavailable
from stream.core.types import CallUsage, ModelCall
from tests.model_endpoint import (
    ModelHandler,
    completion,
    serve,
    stream_events,
    usage,
)

T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
FULL_USAGE = usage(120, 30, cached=100, reasoning=7)


def _clock() -> Callable[[], float]:
    ticks = iter(range(100))
    return lambda: next(ticks) * 0.125


def _wall() -> Callable[[], datetime]:
    ticks = iter(range(100))
    return lambda: T0 + timedelta(seconds=next(ticks))


def _adapter(
    handler: Callable[[httpx.Request], httpx.Response], **options: Any
) -> OpenAIChatAdapter:
    return OpenAIChatAdapter(
        "http://model.test/v1",
        "gpt-4o-mini",
        clock=_clock(),
        wall_clock=_wall(),
        transport=httpx.MockTransport(handler),
        **options,
    )


def _json(body: str, status: int = 200) -> httpx.Response:
    return httpx.Response(
        status, text=body, headers={"content-type": "application/json"}
    )


def _sse(body: str) -> httpx.Response:
    return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})


def _generate(adapter: OpenAIChatAdapter) -> Any:
    return adapter.generate("PROMPT", sampler=SAMPLERS["standard"], seed=11)


EXPECTED = ModelCall(
    provider="openai",
    request_model="gpt-4o-mini",
    temperature=0.7,
    top_p=0.95,
    max_tokens=512,
    seed=11,
    response_model="gpt-4o-mini-2024-07-18",
    response_id="chatcmpl-9",
    usage=CallUsage(120, 30, 100, 7),
    started_at=T0,
    ended_at=T0 + timedelta(seconds=1),
    latency_ms=125.0,
    finish_reason="stop",
)


def test_a_completion_reports_usage_models_and_timings() -> None:
    answer = completion(
        "Quiet.",
        "chatcmpl-9",
        model="gpt-4o-mini-2024-07-18",
        usage=FULL_USAGE,
        finish_reason="stop",
    )
    generated = _generate(_adapter(lambda request: _json(answer)))
    assert (generated.text, generated.latency_ms) == ("Quiet.", 125.0)
    assert generated.call == EXPECTED


def test_a_completion_without_usage_reports_it_unknown() -> None:
    generated = _generate(_adapter(lambda request: _json(completion("Quiet."))))
    assert generated.call.usage is None
    assert (generated.call.response_model, generated.call.finish_reason) == ("", "")


def test_a_retried_call_counts_its_retries() -> None:
    answers = iter([_json("busy", 503), _json("oops", 500), _json(completion("ok"))])
    generated = _generate(_adapter(lambda request: next(answers), max_retries=2))
    assert generated.call.retries == 2
    assert generated.call.error == ""


def test_a_4xx_raises_with_the_failed_call() -> None:
    with pytest.raises(ModelError) as raised:
        _generate(_adapter(lambda request: _json('{"error": "nope"}', 404)))
    call = raised.value.call
    assert call is not None
    assert (call.retries, call.usage, call.latency_ms) == (0, None, 125.0)
    assert call.error == (
        "model_error: model endpoint http://model.test/v1/chat/completions "
        'answered HTTP 404: {"error": "nope"}'
    )
    assert (call.started_at, call.ended_at) == (T0, T0 + timedelta(seconds=1))


def test_an_unreachable_endpoint_raises_with_every_attempt_counted() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(ModelUnavailable) as raised:
        _generate(_adapter(refuse, max_retries=2))
    call = raised.value.call
    assert call is not None
    assert call.retries == 2
    assert call.error.startswith("model_unavailable: model endpoint ")


def test_a_stream_asks_for_usage_and_measures_the_first_token() -> None:
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return _sse(
            stream_events(
                "It is quiet here.",
                "chatcmpl-9",
                model="gpt-4o-mini-2024-07-18",
                usage=FULL_USAGE,
            )
        )

    generated = _generate(_adapter(answer, stream=True))
    assert sent[0]["stream"] is True
    assert sent[0]["stream_options"] == {"include_usage": True}
    assert generated.text == "It is quiet here."
    # clock: 0 start, 0.125 first text, 0.25 end.
    assert generated.call == replace(
        EXPECTED, latency_ms=250.0, ttft_ms=125.0, streamed=True
    )
    assert generated.latency_ms == 250.0


def test_a_stream_without_usage_reports_it_unknown() -> None:
    generated = _generate(
        _adapter(lambda request: _sse(stream_events("ok", usage=None)), stream=True)
    )
    assert generated.text == "ok"
    assert generated.call.usage is None


def test_a_stream_is_retried_after_a_5xx() -> None:
    answers = iter([_json("busy", 502), _sse(stream_events("ok", usage=FULL_USAGE))])
    generated = _generate(
        _adapter(lambda request: next(answers), stream=True, max_retries=1)
    )
    assert (generated.text, generated.call.retries) == ("ok", 1)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('data: {"error": {"message": "overloaded"}}\n\n', "streamed an error"),
        ("data: not json\n\n", "streamed an event that is not JSON"),
        ("data: [1, 2]\n\n", "streamed an event that is not an object"),
        ("data: [DONE]\n\n", "streamed no completion"),
        (": keep-alive comment only\n\n", "streamed no completion"),
    ],
)
def test_a_broken_stream_is_a_model_error_with_its_call(body: str, says: str) -> None:
    with pytest.raises(ModelError, match=says) as raised:
        _generate(_adapter(lambda request: _sse(body), stream=True))
    assert raised.value.call is not None
    assert raised.value.call.error.startswith("model_error: ")


# --- the local OpenAI-compatible server, and the official client on it -------


@pytest.fixture
def server() -> Iterator[str]:
    class Handler(ModelHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.answer_chat(
                json.loads(self.read_body()),
                "The forest is quiet tonight.",
                model="tiny-2026",
                usage=FULL_USAGE,
                completion_id="chatcmpl-local",
            )

    with serve(Handler) as url:
        yield url


@pytest.mark.parametrize("stream", [False, True])
def test_the_adapter_reads_the_local_server_plain_and_streamed(
    server: str, stream: bool
) -> None:
    with OpenAIChatAdapter(server, "tiny", stream=stream) as adapter:
        generated = _generate(adapter)
    call = generated.call
    assert generated.text == "The forest is quiet tonight."
    assert (call.response_model, call.response_id, call.finish_reason) == (
        "tiny-2026",
        "chatcmpl-local",
        "stop",
    )
    assert call.usage == CallUsage(120, 30, 100, 7)
    assert (call.ttft_ms is not None) is stream


@pytest.mark.parametrize("stream", [False, True])
def test_the_official_openai_client_reads_the_same_usage(
    server: str, stream: bool
) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=server, api_key="sk-local", max_retries=0)
    messages = [{"role": "user", "content": "PROMPT"}]
    if stream:
        chunks = list(
            client.chat.completions.create(
                model="tiny",
                messages=messages,
                stream=True,
                stream_options={"include_usage": True},
            )
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        reported = chunks[-1].usage
        model = chunks[-1].model
    else:
        answer = client.chat.completions.create(model="tiny", messages=messages)
        text = answer.choices[0].message.content
        reported = answer.usage
        model = answer.model
    client.close()
    assert (text, model) == ("The forest is quiet tonight.", "tiny-2026")
    assert reported is not None
    with OpenAIChatAdapter(server, "tiny", stream=stream) as adapter:
        ours = _generate(adapter).call.usage
    assert ours == CallUsage(
        input_tokens=reported.prompt_tokens,
        output_tokens=reported.completion_tokens,
        cached_input_tokens=reported.prompt_tokens_details.cached_tokens,
        reasoning_tokens=reported.completion_tokens_details.reasoning_tokens,
    )
