"""A model call the adapters made, as a span record.

The harness and the keep-alive loop hand over the record their model
adapter reported (``stream.core.types.ModelCall``, read here through the
``ModelCallLike`` protocol, since ``traces.core`` imports no other app) and
get a ``SpanRecord`` in the GenAI conventions' terms: operation ``chat``,
kind ``client``, named ``chat <model>``. Invariants:

- Unknown stays unknown: a call without usage gives a record without
  token counts (``None``), never 0.
- Ids are derived, not drawn: ``call_ids`` hashes the parts that name the
  call (a run and a case, an agent and a tick), so a call stored twice (a
  chunk retried) is the same span and stored once.
- The built-in adapters (provider ``evalsite``: scripted replays, the
  baseline policy) call no model: their cost is known, 0, sent as the
  client's cost so the price table never lists them as unpriced.
- Prompt and completion text go into the attributes
  (``gen_ai.prompt``, ``gen_ai.completion``) only when given.

Deterministic, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal
from hashlib import sha256
from typing import Any, Final, Protocol

from traces.core.records import STATUS_ERROR, STATUS_OK, SpanRecord, TokenUsage

BUILTIN_PROVIDER: Final = "evalsite"
OPERATION_CHAT: Final = "chat"
KIND_CLIENT: Final = "client"


class CallUsageLike(Protocol):
    @property
    def input_tokens(self) -> int | None: ...

    @property
    def output_tokens(self) -> int | None: ...

    @property
    def cached_input_tokens(self) -> int | None: ...

    @property
    def reasoning_tokens(self) -> int | None: ...


class ModelCallLike(Protocol):
    """What a span is built from (the fields of the stream's ``ModelCall``)."""

    @property
    def provider(self) -> str: ...

    @property
    def request_model(self) -> str: ...

    @property
    def response_model(self) -> str: ...

    @property
    def response_id(self) -> str: ...

    @property
    def request_params(self) -> dict[str, float | int]: ...

    @property
    def usage(self) -> CallUsageLike | None: ...

    @property
    def started_at(self) -> datetime | None: ...

    @property
    def ended_at(self) -> datetime | None: ...

    @property
    def latency_ms(self) -> float | None: ...

    @property
    def ttft_ms(self) -> float | None: ...

    @property
    def finish_reason(self) -> str: ...

    @property
    def retries(self) -> int: ...

    @property
    def error(self) -> str: ...

    @property
    def streamed(self) -> bool: ...


def call_ids(*parts: str) -> tuple[str, str]:
    """The trace id (32 hex digits) and span id (16) of the call ``parts``
    name: the sha256 of the parts joined by a unit separator, and the
    sha256 of that trace id."""
    trace_id = sha256("\x1f".join(parts).encode()).hexdigest()[:32]
    return trace_id, sha256(trace_id.encode()).hexdigest()[:16]


def _tokens(usage: CallUsageLike | None) -> TokenUsage:
    if usage is None:
        return TokenUsage()
    return TokenUsage(
        input=usage.input_tokens,
        output=usage.output_tokens,
        cached_input=usage.cached_input_tokens,
        reasoning=usage.reasoning_tokens,
    )


def model_call_span(
    call: ModelCallLike,
    *,
    source: str,
    ids: tuple[str, str],
    started_at: datetime,
    run_ref: str = "",
    case_ref: str = "",
    thought_ref: int | None = None,
    prompt: str | None = None,
    completion: str | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> SpanRecord:
    """The span of ``call``.

    ``ids`` is ``call_ids(...)``'s pair. ``started_at`` is used when the
    call has no start of its own (the built-in adapters read no clock); the
    end is then the start plus the latency. ``attributes`` are kept as
    given, beside ``gen_ai.response.id`` and the texts.
    """
    start = call.started_at or started_at
    end = call.ended_at or start + timedelta(milliseconds=call.latency_ms or 0.0)
    kept: dict[str, Any] = dict(attributes or {})
    if call.response_id:
        kept["gen_ai.response.id"] = call.response_id
    if call.streamed:
        kept["gen_ai.request.stream"] = True
    if prompt is not None:
        kept["gen_ai.prompt"] = prompt
    if completion is not None:
        kept["gen_ai.completion"] = completion
    model = call.request_model or call.response_model
    trace_id, span_id = ids
    return SpanRecord(
        trace_id=trace_id,
        span_id=span_id,
        name=f"{OPERATION_CHAT} {model}".strip(),
        started_at=start,
        ended_at=max(end, start),
        source=source,
        kind=KIND_CLIENT,
        operation=OPERATION_CHAT,
        provider=call.provider,
        request_model=call.request_model,
        response_model=call.response_model,
        request_params=dict(call.request_params),
        usage=_tokens(call.usage),
        client_cost_usd=Decimal(0) if call.provider == BUILTIN_PROVIDER else None,
        latency_ms=call.latency_ms,
        ttft_ms=call.ttft_ms,
        finish_reason=call.finish_reason,
        retries=call.retries,
        status=STATUS_ERROR if call.error else STATUS_OK,
        error=call.error,
        thought_ref=thought_ref,
        run_ref=run_ref,
        case_ref=case_ref,
        attributes=kept,
    )
