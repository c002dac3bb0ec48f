"""Every model call of the harness is a span: one per case, linked to the
run and the case, stored in one batch per chunk; against the scripted model
and against a local OpenAI-compatible endpoint (usage, retries, errors,
streaming)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from evals.services.harness import call_spans
from evals.services.harness.call_spans import ChunkCalls
from stream.core.types import CallUsage, ModelCall
from tests.evals.harness_support import SHIPPED, SMOKE_IDS, run_suite
from tests.model_endpoint import ModelHandler, serve, usage
from traces.facade import call_ids
from traces.models import Span

pytestmark = pytest.mark.django_db
AT = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
STANDARD = {"temperature": 0.7, "top_p": 0.95, "max_tokens": 512}


@dataclass
class Endpoint:
    """What the local endpoint answers: ``failures`` 500s first, then the
    completion, with ``usage`` when set."""

    url: str = ""
    failures: int = 0
    usage: dict[str, Any] | None = field(default_factory=lambda: usage(90, 12))
    requests: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def endpoint(settings: Any) -> Iterator[Endpoint]:
    state = Endpoint()

    class Handler(ModelHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            state.requests.append(json.loads(self.read_body()))
            if state.failures:
                state.failures -= 1
                self.send_json(500, '{"error": "busy"}')
                return
            self.answer_chat(
                state.requests[-1],
                "The plains are quiet.",
                model="tiny-2026",
                usage=state.usage,
                completion_id=f"cmpl-{len(state.requests)}",
            )

    with serve(Handler) as url:
        state.url = url
        settings.OPENAI_BASE_URL = url
        settings.OPENAI_MODEL = "tiny"
        settings.OPENAI_MAX_RETRIES = 2
        settings.OPENAI_TIMEOUT_S = 5
        yield state


def _spans(run_id: str) -> list[Span]:
    return list(Span.objects.filter(run_ref=run_id).order_by("case_ref"))


def test_a_scripted_run_stores_one_builtin_span_per_case() -> None:
    run = run_suite(SHIPPED / "smoke.jsonl", seed=7)
    spans = _spans(run.run_id)
    assert [s.case_ref for s in spans] == sorted(SMOKE_IDS)
    for span in spans:
        assert (span.trace_id, span.span_id) == call_ids(run.run_id, span.case_ref)
        assert (span.source, span.kind, span.operation, span.name) == (
            "harness",
            "client",
            "chat",
            "chat scripted",
        )
        assert (span.provider, span.request_model) == ("evalsite", "scripted")
        assert span.request_params == {**STANDARD, "seed": 7}
        assert (span.input_tokens, span.output_tokens) == (None, None)
        assert (span.cost_usd, span.cost_source) == (Decimal(0), "client")
        assert (span.status, span.retries, span.finish_reason) == ("ok", 0, "stop")
        assert span.attributes == {
            "evalsite.artifact": f"scenarios/{span.case_ref}.json"
        }
        assert "gen_ai.prompt" not in span.attributes
        assert span.latency_ms is not None
        assert span.ended_at >= span.started_at


def test_repeats_give_each_epoch_its_own_span() -> None:
    run = run_suite(SHIPPED / "smoke.jsonl", repeats="2")
    cases = [s.case_ref for s in _spans(run.run_id)]
    assert len(cases) == 10
    assert "smoke:stable-plains#1" in cases


def test_a_chunk_stores_its_spans_in_one_batch(monkeypatch: Any) -> None:
    batches: list[int] = []
    real = call_spans.record_spans

    def counting(records: list[Any], **kwargs: Any) -> Any:
        batches.append(len(records))
        return real(records, **kwargs)

    monkeypatch.setattr(call_spans, "record_spans", counting)
    run = run_suite(SHIPPED / "smoke.jsonl")
    assert batches == [5]
    assert Span.objects.filter(run_ref=run.run_id).count() == 5


def test_a_retried_chunk_stores_its_calls_once() -> None:
    call = ModelCall("openai", "tiny", usage=CallUsage(1, 2), latency_ms=3.0)
    first = ChunkCalls("run-x")
    first.add("s1", call, AT)
    first.add("s2", None, AT)  # no model was called
    assert first.store() == 1
    again = ChunkCalls("run-x")
    again.add("s1", call, AT)
    assert again.store() == 0
    assert Span.objects.filter(run_ref="run-x").count() == 1


def test_openai_calls_record_tokens_models_params_and_finish(
    endpoint: Endpoint,
) -> None:
    endpoint.usage = usage(90, 12, cached=64, reasoning=5)
    run = run_suite(SHIPPED / "smoke.jsonl", model="openai", seed=3)
    spans = _spans(run.run_id)
    assert len(spans) == 5
    assert len(endpoint.requests) == 5
    for span in spans:
        assert (span.provider, span.request_model, span.response_model) == (
            "openai",
            "tiny",
            "tiny-2026",
        )
        assert span.request_params == {**STANDARD, "seed": 3}
        assert (
            span.input_tokens,
            span.output_tokens,
            span.cached_input_tokens,
            span.reasoning_tokens,
        ) == (90, 12, 64, 5)
        assert (span.finish_reason, span.retries, span.status) == ("stop", 0, "ok")
        assert span.latency_ms is not None and span.latency_ms > 0
        assert span.ttft_ms is None
        assert span.attributes["gen_ai.response.id"].startswith("cmpl-")
        assert "gen_ai.completion" not in span.attributes


def test_a_call_retried_after_a_500_records_its_retry(endpoint: Endpoint) -> None:
    endpoint.failures = 1
    run = run_suite(SHIPPED / "smoke.jsonl", model="openai")
    retries = {s.case_ref: s.retries for s in _spans(run.run_id)}
    assert retries == {case: (1 if case == SMOKE_IDS[0] else 0) for case in SMOKE_IDS}
    assert len(endpoint.requests) == 6


def test_absent_usage_is_stored_as_null(endpoint: Endpoint) -> None:
    endpoint.usage = None
    run = run_suite(SHIPPED / "smoke.jsonl", model="openai")
    spans = _spans(run.run_id)
    assert {(s.input_tokens, s.output_tokens) for s in spans} == {(None, None)}
    assert {s.cost_source for s in spans} == {"unknown"}


def test_streamed_calls_record_time_to_first_token(
    endpoint: Endpoint, settings: Any
) -> None:
    settings.OPENAI_STREAM = True
    run = run_suite(SHIPPED / "smoke.jsonl", model="openai")
    spans = _spans(run.run_id)
    assert all(r["stream"] is True for r in endpoint.requests)
    assert all(
        r["stream_options"] == {"include_usage": True} for r in endpoint.requests
    )
    for span in spans:
        assert (span.input_tokens, span.output_tokens) == (90, 12)
        assert span.ttft_ms is not None and 0 <= span.ttft_ms <= span.latency_ms
        assert span.attributes["gen_ai.request.stream"] is True


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_endpoint_that_is_down_gives_error_spans(settings: Any) -> None:
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{_closed_port()}/v1"
    settings.OPENAI_MODEL = "tiny"
    settings.OPENAI_MAX_RETRIES = 1
    run = run_suite(SHIPPED / "smoke.jsonl", model="openai")
    spans = _spans(run.run_id)
    assert len(spans) == 5
    for span in spans:
        assert (span.status, span.retries) == ("error", 1)
        assert span.error.startswith("model_unavailable: model endpoint ")
        assert span.error.endswith("connection failed (ConnectError)")
        assert (span.input_tokens, span.response_model, span.finish_reason) == (
            None,
            "",
            "",
        )
