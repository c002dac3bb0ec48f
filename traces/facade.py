"""What other apps may use of traces (import-linter keeps them to this).

- ``record_spans``: store spans a model adapter's calls produced (the
  harness, the keep-alive loop), priced like OTLP spans.
"""

from __future__ import annotations

from traces.core.records import (
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    SpanRecord,
    TokenUsage,
)
from traces.services.spans import StoreResult, store_spans

__all__ = [
    "SOURCE_HARNESS",
    "SOURCE_KEEPALIVE",
    "SpanRecord",
    "StoreResult",
    "TokenUsage",
    "record_spans",
]


def record_spans(records: list[SpanRecord], *, agent_id: int | None = None) -> StoreResult:
    """Store ``records`` (model calls made through the adapters)."""
    return store_spans(records, agent_id=agent_id)
