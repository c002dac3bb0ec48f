"""traces.core.run_totals: a run's model calls in the words eval_run prints."""

from __future__ import annotations

from decimal import Decimal

from traces.core.run_totals import RunUsageTotals, usage_lines


def test_priced_calls_with_tokens() -> None:
    totals = RunUsageTotals(
        calls=5,
        calls_with_usage=5,
        input_tokens=12345,
        output_tokens=2345,
        cached_input_tokens=0,
        priced_calls=5,
        cost_usd=Decimal("0.0123"),
        price_versions=("2026-11-01",),
    )
    assert usage_lines(totals) == [
        "model calls: 5",
        "tokens: input 12,345 output 2,345 (cached 0)",
        "cost: $0.0123 (priced by table 2026-11-01)",
    ]


def test_some_calls_unpriced_and_silent() -> None:
    totals = RunUsageTotals(
        calls=5,
        failed_calls=1,
        calls_with_usage=4,
        input_tokens=100,
        output_tokens=20,
        reasoning_tokens=8,
        priced_calls=2,
        cost_usd=Decimal("0.5"),
        price_versions=("v2",),
    )
    assert totals.unpriced_calls == 3
    assert usage_lines(totals) == [
        "model calls: 5 (1 failed)",
        "tokens: input 100 output 20 (cached not reported) reasoning 8; "
        "1 call of 5 reported none",
        "cost: $0.5000 for 2 of 5 calls (priced by table v2; 3 calls unpriced)",
    ]


def test_no_usage_and_no_price_is_unknown_never_zero() -> None:
    totals = RunUsageTotals(calls=3)
    assert usage_lines(totals) == [
        "model calls: 3",
        "tokens: not reported by the model",
        "cost: unknown (3 calls unpriced)",
    ]


def test_a_cost_known_at_the_source_needs_no_table() -> None:
    totals = RunUsageTotals(calls=1, priced_calls=1, cost_usd=Decimal(0))
    assert usage_lines(totals)[1:] == [
        "tokens: not reported by the model",
        "cost: $0.0000",
    ]


def test_a_run_without_calls_says_so() -> None:
    assert usage_lines(RunUsageTotals()) == ["model calls: none recorded"]


def test_fractions_of_a_cent_keep_two_significant_digits() -> None:
    totals = RunUsageTotals(calls=1, priced_calls=1, cost_usd=Decimal("0.0001035"))
    assert usage_lines(totals)[2] == "cost: $0.00010"
