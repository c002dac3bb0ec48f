"""What other apps may use of traces (import-linter keeps them to this).

- ``record_spans``: store spans a model adapter's calls produced (the
  harness, the keep-alive loop), priced like OTLP spans;
  ``model_call_span`` and ``call_ids`` build them from an adapter's
  ``ModelCall`` (``traces.core.model_calls``).
- ``run_usage_totals``: a run's model calls, tokens and cost in total
  (``RunUsageTotals``), and ``usage_lines``, the words ``eval_run`` prints.
- ``runs_usage_summary`` / ``case_usage``: tokens, cost and latency of
  runs and of their cases (``traces.services.usage``), for the compare and
  trends pages and the CI gate's budgets.
"""

from __future__ import annotations

from traces.core.model_calls import call_ids, model_call_span
from traces.core.records import (
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    SpanRecord,
    TokenUsage,
)
from traces.core.run_totals import RunUsageTotals, usage_lines
from traces.selectors import run_usage_totals
from traces.services.spans import StoreResult, store_spans
from traces.services.usage import CaseUsage, RunUsage, case_usage, runs_usage_summary

__all__ = [
    "RunUsageTotals",
    "call_ids",
    "model_call_span",
    "run_usage_totals",
    "usage_lines",
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
