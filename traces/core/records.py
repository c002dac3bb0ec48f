"""The span record every source of spans is turned into.

One shape for the harness's and the keep-alive loop's model calls and for
spans an agent sends over OTLP, so pricing, storage and the pages handle
them the same way. Token counts are ``None`` when the source did not say
(absent ``usage`` is unknown, never 0). Deterministic, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Final

# Where a span came from.
SOURCE_HARNESS: Final = "harness"
SOURCE_KEEPALIVE: Final = "keepalive"
SOURCE_OTLP: Final = "otlp"
SOURCES: Final = (SOURCE_HARNESS, SOURCE_KEEPALIVE, SOURCE_OTLP)

# How a span's cost was found.
COST_CLIENT: Final = "client"  # sent by the client; wins over the computed one
COST_COMPUTED: Final = "computed"  # from the price table (price_version says which)
COST_UNKNOWN: Final = "unknown"  # a model call the table has no price for
COST_NONE: Final = ""  # not a model call (a tool call, an agent step)
COST_SOURCES: Final = (COST_CLIENT, COST_COMPUTED, COST_UNKNOWN, COST_NONE)

STATUS_UNSET: Final = "unset"
STATUS_OK: Final = "ok"
STATUS_ERROR: Final = "error"
STATUSES: Final = (STATUS_UNSET, STATUS_OK, STATUS_ERROR)


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens of one call; ``None`` is "not reported"."""

    input: int | None = None
    output: int | None = None
    cached_input: int | None = None
    cache_write: int | None = None
    reasoning: int | None = None


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One span, ready to price and store.

    ``trace_id`` is 32 lowercase hex digits and ``span_id`` 16; the links
    (``thought_ref``, ``run_ref``, ``case_ref``) are ids, not foreign keys.
    """

    trace_id: str
    span_id: str
    name: str
    started_at: datetime
    ended_at: datetime
    source: str
    parent_span_id: str = ""
    kind: str = "internal"
    operation: str = ""
    provider: str = ""
    request_model: str = ""
    response_model: str = ""
    request_params: dict[str, Any] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    client_cost_usd: Decimal | None = None
    latency_ms: float | None = None
    ttft_ms: float | None = None
    finish_reason: str = ""
    retries: int | None = None
    status: str = STATUS_UNSET
    error: str = ""
    conversation_id: str = ""
    tool_name: str = ""
    agent_name: str = ""
    thought_ref: int | None = None
    run_ref: str = ""
    case_ref: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def is_model_call(self) -> bool:
        """Whether the span is a call to a model (priced), not a tool or step."""
        return bool(self.request_model or self.response_model)
