"""What other apps may use of traces (import-linter keeps them to this).

- ``record_spans``: store spans a model adapter's calls produced (the
  harness, the keep-alive loop), priced like OTLP spans.
- ``runs_usage_summary`` / ``case_usage``: tokens, cost and latency of
  runs and of their cases (``traces.services.usage``), for the compare and
  trends pages and the CI gate's budgets.
"""

from __future__ import annotations

from traces.core.records import (
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    SpanRecord,
    TokenUsage,
)
from traces.services.spans import StoreResult, store_spans
from traces.services.usage import CaseUsage, RunUsage, case_usage, runs_usage_summary

__all__ = [
    "CaseUsage",
    "RunUsage",
    "case_usage",
    "runs_usage_summary",
    "SOURCE_HARNESS",
    "SOURCE_KEEPALIVE",
    "SpanRecord",
    "StoreResult",
    "TokenUsage",
    "record_spans",
]


def record_spans(
    records: list[SpanRecord], *, agent_id: int | None = None
) -> StoreResult:
    """Store ``records`` (model calls made through the adapters)."""
    return store_spans(records, agent_id=agent_id)
