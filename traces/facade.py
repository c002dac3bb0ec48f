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
- ``export_run_scores_later``: queue a finished run's scores for the OTLP
  export once the finish commits (nothing when ``OTLP_EXPORT_ENDPOINT`` is
  empty; ``traces.services.export_queue``).
- ``run_page_usage`` (``RunPageUsage``), ``agent_spend`` (``AgentSpend``)
  with ``agent_spend_figure``, ``trace_url_for_thought``,
  ``trace_url_for_case`` and ``spans_url``: the run, scenario, thought and
  agent pages' usage figures in words and their links to the traces pages
  (``traces.services.usage_pages``).
- ``completions_after`` (``CompletionText``) and ``oldest_span_id``: model
  calls' completion texts in id order, for the search index
  (``traces.selectors_search``).
"""

from __future__ import annotations

from django.utils import timezone

from traces.charts import agent_spend_figure
from traces.core.model_calls import call_ids, model_call_span
from traces.core.records import (
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    SpanRecord,
    TokenUsage,
)
from traces.core.run_totals import RunUsageTotals, usage_lines
from traces.selectors import run_usage_totals, trace_id_of_case, trace_id_of_thought
from traces.selectors_search import CompletionText, completions_after, oldest_span_id
from traces.services.export_queue import score_export_schedule
from traces.services.spans import StoreResult, store_spans
from traces.services.usage import CaseUsage, RunUsage, case_usage, runs_usage_summary
from traces.services.usage_pages import (
    AgentSpend,
    RunPageUsage,
    run_page_usage,
    spans_url,
    trace_url,
)
from traces.services.usage_pages import agent_spend as _agent_spend

__all__ = [
    "AgentSpend",
    "RunPageUsage",
    "agent_spend",
    "agent_spend_figure",
    "run_page_usage",
    "spans_url",
    "trace_url_for_case",
    "trace_url_for_thought",
    "RunUsageTotals",
    "call_ids",
    "model_call_span",
    "run_usage_totals",
    "usage_lines",
    "CaseUsage",
    "RunUsage",
    "case_usage",
    "export_run_scores_later",
    "runs_usage_summary",
    "SOURCE_HARNESS",
    "SOURCE_KEEPALIVE",
    "SpanRecord",
    "StoreResult",
    "TokenUsage",
    "record_spans",
    "CompletionText",
    "completions_after",
    "oldest_span_id",
]


def record_spans(
    records: list[SpanRecord], *, agent_id: int | None = None
) -> StoreResult:
    """Store ``records`` (model calls made through the adapters)."""
    return store_spans(records, agent_id=agent_id)


def export_run_scores_later(run_id: str) -> None:
    """Queue run ``run_id``'s scores for the OTLP export after commit (a
    no-op with the export off; never breaks the caller's finish)."""
    score_export_schedule(run_id=run_id)


def agent_spend(agent_id: int, *, agent_name: str, days: int = 30) -> AgentSpend:
    """The agent's model calls per day over the last ``days`` days."""
    return _agent_spend(
        agent_id=agent_id, agent_name=agent_name, days=days, now=timezone.now()
    )


def trace_url_for_thought(pk: int) -> str:
    """The trace of the thought's model call ("" when none was recorded)."""
    return trace_url(trace_id_of_thought(pk))


def trace_url_for_case(run_id: str, case_id: str) -> str:
    """The trace of a run's case ("" when it recorded no span)."""
    return trace_url(trace_id_of_case(run_id, case_id))
