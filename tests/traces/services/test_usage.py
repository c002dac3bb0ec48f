"""Usage of runs from their spans: sums per case and run, unknown never 0,
one query for many runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import numpy as np
import pytest

from traces.core.records import SOURCE_HARNESS, SpanRecord, TokenUsage
from traces.facade import case_usage, record_spans, runs_usage_summary
from traces.services.usage import CaseUsage, percentile

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def call(
    run: str,
    case: str,
    n: int,
    *,
    cost: str | None = "0.01",
    latency: float | None = 100.0,
    tokens: tuple[int | None, int | None] = (10, 2),
    model: str = "gpt-4o-mini",
) -> SpanRecord:
    return SpanRecord(
        trace_id=f"{abs(hash((run, case))) % 16**32:032x}",
        span_id=f"{n:016x}",
        name="chat",
        started_at=T0,
        ended_at=T0 + timedelta(milliseconds=latency or 0),
        source=SOURCE_HARNESS,
        request_model=model,
        usage=TokenUsage(input=tokens[0], output=tokens[1]),
        client_cost_usd=Decimal(cost) if cost is not None else None,
        latency_ms=latency,
        run_ref=run,
        case_ref=case,
    )


@pytest.mark.django_db
def test_a_case_sums_its_model_calls_and_a_tool_span_is_not_counted() -> None:
    tool = SpanRecord(
        trace_id="cd" * 16,
        span_id="ff" * 8,
        name="execute_tool",
        started_at=T0,
        ended_at=T0,
        source=SOURCE_HARNESS,
        latency_ms=999.0,
        run_ref="r1",
        case_ref="s1",
    )
    record_spans([call("r1", "s1", 1), call("r1", "s1", 2, latency=50.0), tool])
    assert case_usage(["r1"]) == {
        "r1": {
            "s1": CaseUsage(
                calls=2,
                unpriced_calls=0,
                cost_usd=pytest.approx(0.02),
                latency_ms=150.0,
                input_tokens=20,
                output_tokens=4,
            )
        }
    }


@pytest.mark.django_db
def test_one_unpriced_call_makes_the_cost_unknown_and_is_counted() -> None:
    record_spans(
        [call("r1", "s1", 1), call("r1", "s2", 2, cost=None, model="mystery-model")]
    )
    usage = runs_usage_summary(["r1"], with_cases=True)["r1"]
    assert usage.cost_usd is None
    assert usage.unpriced_calls == 1
    assert usage.priced_cost_usd == pytest.approx(0.01)
    assert usage.cases["s1"].cost_usd == pytest.approx(0.01)
    assert usage.cases["s2"].cost_usd is None


@pytest.mark.django_db
def test_unreported_tokens_are_unknown_for_the_case_and_the_run() -> None:
    record_spans([call("r1", "s1", 1), call("r1", "s2", 2, tokens=(None, None))])
    usage = runs_usage_summary(["r1"], with_cases=True)["r1"]
    assert usage.input_tokens is None
    assert usage.output_tokens is None
    assert usage.cases["s1"].input_tokens == 10
    assert usage.cases["s2"].input_tokens is None


@pytest.mark.django_db
def test_a_run_without_spans_has_no_calls_and_unknown_figures() -> None:
    usage = runs_usage_summary(["nothing"])["nothing"]
    assert usage.calls == 0
    assert usage.has_calls is False
    assert usage.cost_usd is None
    assert usage.input_tokens is None
    assert usage.latency_p95_ms is None


@pytest.mark.django_db
def test_run_level_calls_count_in_totals_but_not_in_case_percentiles() -> None:
    record_spans(
        [
            call("r1", "s1", 1, latency=100.0),
            call("r1", "s2", 2, latency=300.0),
            call("r1", "", 3, latency=10_000.0),
        ]
    )
    usage = runs_usage_summary(["r1"])["r1"]
    assert usage.calls == 3
    assert usage.cost_usd == pytest.approx(0.03)
    assert usage.cases_with_calls == 2
    assert usage.latency_p50_ms == pytest.approx(200.0)
    assert usage.latency_p95_ms == pytest.approx(290.0)
    assert usage.cases == {}


@pytest.mark.django_db
def test_many_runs_are_summed_in_one_query(django_assert_num_queries) -> None:
    records = [
        call(f"run-{r}", f"s{c}", r * 100 + c, latency=float(10 * c + r))
        for r in range(30)
        for c in range(5)
    ]
    record_spans(records)
    with django_assert_num_queries(1):
        summary = runs_usage_summary([f"run-{r}" for r in range(30)])
    assert len(summary) == 30
    assert summary["run-7"].calls == 5
    assert summary["run-7"].latency_p95_ms == pytest.approx(
        float(np.percentile([10 * c + 7 for c in range(5)], 95))
    )


def test_percentile_matches_numpy_linear_interpolation() -> None:
    rng = np.random.default_rng(7)
    for size in (1, 2, 3, 10, 101):
        values = list(rng.lognormal(5, 1, size))
        for q in (0, 50, 95, 99, 100):
            assert percentile(values, q) == pytest.approx(
                float(np.percentile(values, q)), rel=1e-12
            )
    assert percentile([], 95) is None
