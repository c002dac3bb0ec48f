"""The keep-alive loop's model calls as spans: a tick's call is stored
linked to the agent and to its thought, texts only while
TRACE_STORE_CONTENT is on, a failed call as an error span."""

from __future__ import annotations

import copy
import json
import socket
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.db import DatabaseError
from django.utils import timezone

from stream.core.adapters import ModelUnavailable
from stream.core.baseline import BaselineAdapter
from stream.core.thought_types import KEEPALIVE_TYPE
from stream.core.types import Generation, ModelCall
from stream.models import Thought
from stream.services import keepalive_spans
from stream.services.keepalive import keepalive_tick
from stream.services.keepalive_spans import keepalive_call_record
from stream.services.thoughts import percept_record
from tests.model_endpoint import ModelHandler, serve, usage
from traces.facade import call_ids
from traces.models import Span

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 23, 12, 0, 0, tzinfo=timezone.UTC)


class Recording:
    """The baseline model, remembering each prompt and what it answered."""

    def __init__(self) -> None:
        self.inner = BaselineAdapter()
        self.seen: list[tuple[str, str]] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def generate(self, prompt: str, **options: Any) -> Generation:
        generated = self.inner.generate(prompt, **options)
        self.seen.append((prompt, generated.text))
        return generated


def _perceive(agent: Any, facts: dict[str, Any]) -> None:
    percept_record(
        agent=agent,
        document={"facts": copy.deepcopy(facts)},
        now=T0 - timedelta(seconds=1),
    )


def test_a_tick_stores_its_call_linked_to_its_thought(
    agent: Any, calm_facts: Any, settings: Any
) -> None:
    settings.TRACE_STORE_CONTENT = True
    _perceive(agent, calm_facts)
    adapter = Recording()
    outcome = keepalive_tick(agent_id=agent.pk, now=T0, adapter=adapter)
    span = Span.objects.get()
    assert outcome.thought is not None
    assert (span.source, span.agent_id, span.thought_ref) == (
        "keepalive",
        agent.pk,
        outcome.thought.pk,
    )
    assert (span.trace_id, span.span_id) == call_ids(
        "keepalive", str(agent.pk), str(int(T0.timestamp() * 1000))
    )
    assert (span.provider, span.request_model, span.status) == (
        "evalsite",
        "baseline-v1",
        "ok",
    )
    assert (span.run_ref, span.case_ref) == ("", "")
    assert span.cost_usd == Decimal(0)
    assert span.started_at == T0
    [(prompt, completion)] = adapter.seen
    assert span.attributes == {"gen_ai.prompt": prompt, "gen_ai.completion": completion}


def test_texts_are_not_kept_when_the_setting_is_off(
    agent: Any, calm_facts: Any, settings: Any
) -> None:
    settings.TRACE_STORE_CONTENT = False
    _perceive(agent, calm_facts)
    keepalive_tick(agent_id=agent.pk, now=T0)
    assert Span.objects.get().attributes == {}


@pytest.fixture
def chat(settings: Any) -> Iterator[list[dict[str, Any]]]:
    requests: list[dict[str, Any]] = []

    class Handler(ModelHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            requests.append(json.loads(self.read_body()))
            self.answer_chat(
                requests[-1],
                "The forest is quiet.",
                model="tiny-2026",
                usage=usage(300, 8, cached=256),
            )

    with serve(Handler) as url:
        settings.KEEPALIVE_MODEL = "openai"
        settings.OPENAI_BASE_URL = url
        settings.OPENAI_MODEL = "tiny"
        settings.OPENAI_MAX_RETRIES = 0
        yield requests


def test_an_openai_tick_stores_the_usage_the_endpoint_reported(
    agent: Any, calm_facts: Any, chat: list[dict[str, Any]]
) -> None:
    _perceive(agent, calm_facts)
    outcome = keepalive_tick(agent_id=agent.pk, now=T0)
    span = Span.objects.get()
    assert outcome.thought is not None and span.thought_ref == outcome.thought.pk
    assert (span.provider, span.request_model, span.response_model) == (
        "openai",
        "tiny",
        "tiny-2026",
    )
    assert (span.input_tokens, span.output_tokens, span.cached_input_tokens) == (
        300,
        8,
        256,
    )
    assert span.request_params["seed"] == chat[0]["seed"]
    assert span.finish_reason == "stop"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_failed_call_is_an_error_span_and_no_thought(
    agent: Any, calm_facts: Any, settings: Any
) -> None:
    settings.KEEPALIVE_MODEL = "openai"
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{_closed_port()}/v1"
    settings.OPENAI_MODEL = "tiny"
    settings.OPENAI_MAX_RETRIES = 1
    _perceive(agent, calm_facts)
    with pytest.raises(ModelUnavailable):
        keepalive_tick(agent_id=agent.pk, now=T0)
    span = Span.objects.get()
    assert not Thought.objects.filter(agent=agent, type=KEEPALIVE_TYPE).exists()
    assert (span.status, span.retries, span.thought_ref) == ("error", 1, None)
    assert span.error.startswith("model_unavailable: ")
    assert span.input_tokens is None


def test_a_span_the_database_refuses_is_logged_and_the_tick_goes_on(
    agent: Any, calm_facts: Any, monkeypatch: Any, log_lines: Any
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseError("disk full")

    monkeypatch.setattr(keepalive_spans, "record_spans", refuse)
    _perceive(agent, calm_facts)
    outcome = keepalive_tick(agent_id=agent.pk, now=T0)
    assert outcome.ran and outcome.thought is not None
    assert log_lines("[KeepAlive] span_not_stored") == [
        "[KeepAlive] span_not_stored reason=DatabaseError"
    ]


def test_no_call_stores_nothing(agent: Any) -> None:
    assert keepalive_call_record(agent_id=agent.pk, now=T0, call=None) is False
    call = ModelCall("evalsite", "baseline-v1", latency_ms=1.0)
    assert keepalive_call_record(agent_id=agent.pk, now=T0, call=call) is True
    assert keepalive_call_record(agent_id=agent.pk, now=T0, call=call) is False
    assert Span.objects.count() == 1
