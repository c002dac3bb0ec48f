"""Runs with case results and the spans of their model calls, for the cost
and latency tests (compare page, trends, the gate's budgets)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from decimal import Decimal

from evals.models import Run
from tests.evals.compare_support import T0, posted_run
from traces.facade import SOURCE_HARNESS, SpanRecord, TokenUsage, record_spans


def stored_run(
    benchmark_id: str, run_id: str, case_ids: list[str], *, minutes: int = 0
) -> Run:
    """A completed run (as if posted over REST) whose cases all passed."""
    return posted_run(
        benchmark_id, run_id, dict.fromkeys(case_ids, True), minutes=minutes
    )


def spans_for(
    run_id: str,
    figures: dict[str, tuple[str | None, float]],
    *,
    tokens: tuple[int | None, int | None] = (100, 20),
) -> None:
    """One model call per case: ``{case_id: (cost or None: unpriced,
    latency ms)}``."""
    records = []
    for case_id, (cost, latency) in figures.items():
        digest = hashlib.sha256(f"{run_id}/{case_id}".encode()).hexdigest()
        records.append(
            SpanRecord(
                trace_id=digest[:32],
                span_id=digest[32:48],
                name="chat",
                started_at=T0,
                ended_at=T0 + timedelta(milliseconds=latency),
                source=SOURCE_HARNESS,
                request_model="gpt-4o-mini" if cost is not None else "mystery-model",
                usage=TokenUsage(input=tokens[0], output=tokens[1]),
                client_cost_usd=Decimal(cost) if cost is not None else None,
                latency_ms=latency,
                run_ref=run_id,
                case_ref=case_id,
            )
        )
    record_spans(records)
