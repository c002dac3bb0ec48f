"""The keep-alive calls its model with no transaction open.

A slow OpenAI-compatible endpoint (a local HTTP server in the test) holds
the keep-alive tick in its model call; a concurrent POST /thoughts must be
answered at once, not after the model (on SQLite an open transaction holds
the database's write lock; on PostgreSQL the state row's lock).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.db import connection

from stream.models import KeepAliveState, Thought
from stream.services.keepalive import keepalive_tick
from stream.services.thoughts import percept_record

pytestmark = pytest.mark.django_db(transaction=True)


class SlowModel:
    """A chat-completions endpoint that answers only when released."""

    def __init__(self) -> None:
        self.called = threading.Event()
        self.release = threading.Event()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                self.rfile.read(length)
                model.called.set()
                model.release.wait(timeout=20)
                body = json.dumps(
                    {"choices": [{"message": {"content": "The forest is quiet."}}]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def slow_model() -> Iterator[SlowModel]:
    model = SlowModel()
    model.thread.start()
    yield model
    model.release.set()
    model.server.shutdown()
    model.server.server_close()


def test_slow_model_does_not_block_a_concurrent_post_thoughts(
    agent: Any, agent_client: Any, calm_facts: Any, slow_model: SlowModel, settings: Any
) -> None:
    settings.KEEPALIVE_MODEL = "openai"
    settings.OPENAI_BASE_URL = slow_model.base_url
    settings.OPENAI_MODEL = "slow"
    settings.OPENAI_TIMEOUT_S = 20
    settings.OPENAI_MAX_RETRIES = 0
    percept_record(agent=agent, document={"facts": calm_facts})
    outcome: dict[str, Any] = {}

    def tick() -> None:
        try:
            outcome["result"] = keepalive_tick(agent_id=agent.pk)
        except BaseException as exc:  # surfaced by the assertion below
            outcome["error"] = exc
        finally:
            connection.close()

    worker = threading.Thread(target=tick)
    worker.start()
    try:
        assert slow_model.called.wait(timeout=10), "the model was never called"
        started = time.monotonic()
        response = agent_client.post(
            "/api/cognitive-stream/thoughts",
            {"content": "A cow wanders past."},
            format="json",
        )
        elapsed = time.monotonic() - started
        # While the model is still thinking, no second tick runs, not even
        # one a stimulus or a poke would let bypass the cooldown.
        assert keepalive_tick(agent_id=agent.pk).reason == "in_flight"
        assert keepalive_tick(agent_id=agent.pk, poked=True).reason == "in_flight"
    finally:
        slow_model.release.set()
        worker.join(timeout=30)
    assert response.status_code == 201, response.content
    assert elapsed < 2.0
    assert "error" not in outcome, outcome.get("error")
    assert outcome["result"].ran
    assert Thought.objects.filter(agent=agent, type="keepalive").count() == 1
    state = KeepAliveState.objects.get(agent=agent)
    assert state.last_frame_snapshot is not None
    assert state.introspecting_since is None


def test_a_failed_model_call_gives_the_slot_back(
    agent: Any, calm_facts: Any, settings: Any
) -> None:
    settings.KEEPALIVE_MODEL = "openai"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: refused
    settings.OPENAI_MODEL = "absent"
    settings.OPENAI_MAX_RETRIES = 0
    percept_record(agent=agent, document={"facts": calm_facts})
    from stream.core.adapters import ModelUnavailable

    with pytest.raises(ModelUnavailable):
        keepalive_tick(agent_id=agent.pk)
    state = KeepAliveState.objects.get(agent=agent)
    assert state.last_introspection_at is None
    assert state.introspecting_since is None
    assert not Thought.objects.filter(agent=agent, type="keepalive").exists()


def test_a_crashed_workers_claim_is_taken_over_after_the_longest_call(
    agent: Any, calm_facts: Any, settings: Any
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    settings.OPENAI_TIMEOUT_S = 30
    settings.OPENAI_MAX_RETRIES = 2  # 3 x 30 s + 60 s = 150 s
    now = timezone.now()
    percept_record(agent=agent, document={"facts": calm_facts}, now=now)
    KeepAliveState.objects.create(
        agent=agent,
        introspecting_since=now - timedelta(seconds=149),
        last_introspection_at=now - timedelta(seconds=149),
    )
    assert keepalive_tick(agent_id=agent.pk, now=now).reason == "in_flight"
    later = now + timedelta(seconds=2)
    assert keepalive_tick(agent_id=agent.pk, now=later).ran
