"""Figures in words: unknown is never 0, and the percentiles are numpy's."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from traces.core.usage_text import (
    cost_text,
    latency_percentiles,
    latency_text,
    tokens_text,
    usd_text,
)


@pytest.mark.parametrize(
    ("cost", "text"),
    [
        (Decimal("0"), "$0"),
        (Decimal("1234.5"), "$1,234.50"),
        (Decimal("0.0123"), "$0.0123"),
        (Decimal("0.012345"), "$0.0123"),
        (Decimal("0.000228"), "$0.000228"),
        (Decimal("0.0000152"), "$0.0000152"),
    ],
)
def test_dollars_keep_three_significant_digits_below_a_cent(
    cost: Decimal, text: str
) -> None:
    assert usd_text(cost) == text


def test_a_cost_with_unpriced_calls_says_unknown_and_how_many() -> None:
    assert cost_text(Decimal("0.5"), unpriced=0) == "$0.5000"
    assert (
        cost_text(Decimal("0.5"), unpriced=3) == "$0.5000 + unknown (3 unpriced calls)"
    )
    assert cost_text(None, unpriced=1) == "unknown (1 unpriced call)"
    assert cost_text(None) == "unknown"


def test_absent_tokens_are_not_reported_and_zero_is_zero() -> None:
    assert tokens_text(None) == "not reported"
    assert tokens_text(0) == "0"
    assert tokens_text(1234567) == "1,234,567"


def test_latency_in_ms_under_a_second_and_s_above() -> None:
    assert latency_text(None) == "not reported"
    assert latency_text(4.25) == "4.2 ms"
    assert latency_text(850.4) == "850 ms"
    assert latency_text(1250) == "1.25 s"


def test_percentiles_match_numpy_and_none_for_no_values() -> None:
    values = [float(v) for v in range(1, 101)] + [5000.0]
    found = latency_percentiles(values)
    assert found is not None
    expected = np.percentile(values, [50, 95, 99])
    assert (found.count, found.p50, found.p95, found.p99) == (
        101,
        *(float(v) for v in expected),
    )
    assert latency_percentiles([]) is None
