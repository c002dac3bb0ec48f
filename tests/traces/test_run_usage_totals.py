"""traces.selectors.run_usage_totals (through the facade): a run's model
calls summed from its spans, unknown never 0."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from stream.core.types import CallUsage, ModelCall
from traces.facade import (
    SOURCE_HARNESS,
    RunUsageTotals,
    SpanRecord,
    call_ids,
    model_call_span,
    record_spans,
    run_usage_totals,
)
from traces.models import Span

pytestmark = pytest.mark.django_db
AT = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def _span(case: str, call: ModelCall, run: str = "run-1") -> SpanRecord:
    return model_call_span(
        call,
        source=SOURCE_HARNESS,
        ids=call_ids(run, case),
        started_at=AT,
        run_ref=run,
        case_ref=case,
    )


def test_sums_the_runs_calls_only() -> None:
    record_spans(
        [
            _span("a", ModelCall("openai", "m", usage=CallUsage(100, 10, 40, None))),
            _span("b", ModelCall("openai", "m", usage=CallUsage(50, 5, None, 3))),
            _span("c", ModelCall("openai", "m", error="model_unavailable: down")),
            _span("a", ModelCall("openai", "m", usage=CallUsage(9, 9)), run="other"),
        ]
    )
    Span.objects.filter(case_ref="a", run_ref="run-1").update(
        cost_usd=Decimal("0.25"), cost_source="computed", price_version="t1"
    )
    Span.objects.filter(case_ref="b").update(
        cost_usd=Decimal("0.5"), cost_source="computed", price_version="t2"
    )
    Span.objects.filter(case_ref="c").update(cost_usd=None, cost_source="unknown")
    assert run_usage_totals("run-1") == RunUsageTotals(
        calls=3,
        failed_calls=1,
        calls_with_usage=2,
        input_tokens=150,
        output_tokens=15,
        cached_input_tokens=40,
        reasoning_tokens=3,
        priced_calls=2,
        cost_usd=Decimal("0.75"),
        price_versions=("t1", "t2"),
    )


def test_a_run_without_spans_has_nothing() -> None:
    assert run_usage_totals("nothing") == RunUsageTotals()


def test_builtin_calls_cost_zero_and_report_no_tokens() -> None:
    record_spans([_span("a", ModelCall("evalsite", "scripted", latency_ms=1.0))])
    totals = run_usage_totals("run-1")
    assert (totals.calls, totals.calls_with_usage, totals.input_tokens) == (1, 0, None)
    assert (totals.priced_calls, totals.cost_usd) == (1, Decimal(0))
