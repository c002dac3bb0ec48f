"""The prices page's reads: models with no price, and the active table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from traces.core.prices import PriceRuleSpec, PriceTableSpec
from traces.core.records import SOURCE_OTLP, SpanRecord, TokenUsage
from traces.models import PriceTable
from traces.services.pricing import price_table_load
from traces.services.spans import store_spans
from traces.services.unpriced import (
    UnpricedModel,
    active_table,
    price_text,
    unpriced_models,
)

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def call(n: int, model: str, *, at: datetime = T0, **fields) -> SpanRecord:
    return SpanRecord(
        trace_id="12" * 16,
        span_id=f"{n:016x}",
        name="chat",
        started_at=at,
        ended_at=at,
        source=SOURCE_OTLP,
        request_model=model,
        **fields,
    )


def test_models_with_no_price_are_grouped_with_counts_times_and_tokens() -> None:
    store_spans(
        [
            call(1, "house-7b", provider="vllm-x", usage=TokenUsage(10, 5)),
            call(
                2,
                "house-7b",
                provider="vllm-x",
                at=T0 + timedelta(hours=1),
                usage=TokenUsage(20, None),
            ),
            call(3, "odd", response_model="odd-2026"),
            call(4, "gpt-4o-mini", usage=TokenUsage(1, 1)),  # priced
            call(5, "gpt-4o-mini"),  # known model, no counts: not listed
            call(6, "", tool_name="dig"),  # no model call
        ]
    )
    assert unpriced_models() == [
        UnpricedModel(
            model="house-7b",
            provider="vllm-x",
            spans=2,
            first_seen=T0,
            last_seen=T0 + timedelta(hours=1),
            input_tokens=30,
            output_tokens=5,
            priced_now=False,
        ),
        UnpricedModel(
            model="odd-2026",
            provider="",
            spans=1,
            first_seen=T0,
            last_seen=T0,
            input_tokens=None,
            output_tokens=None,
            priced_now=False,
        ),
    ]


def test_a_model_the_active_table_prices_since_is_marked_priced_now() -> None:
    store_spans([call(1, "house-7b", usage=TokenUsage(1, 1))])
    price_table_load(
        PriceTableSpec(
            version="v-house",
            rules=(PriceRuleSpec("house-*", Decimal(1), Decimal(1)),),
        )
    )
    assert [(m.model, m.priced_now) for m in unpriced_models()] == [("house-7b", True)]


def test_the_list_is_capped_most_called_first() -> None:
    store_spans([call(1, "a"), call(2, "b"), call(3, "b")])
    assert [m.model for m in unpriced_models(limit=1)] == ["b"]


def test_the_active_table_comes_with_its_rules_in_order() -> None:
    shipped = active_table()
    assert (shipped.source, shipped.other_versions) == ("shipped", 0)
    assert shipped.rules[0].pattern == "ollama:*"
    PriceTable.objects.update(active=False)
    assert active_table() is None


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (Decimal("2.5"), "$2.50"),
        (Decimal("0.075000"), "$0.075"),
        (Decimal(120), "$120.00"),
        (Decimal(0), "$0.00"),
        (None, ""),
    ],
)
def test_prices_are_written_as_dollars(amount, text) -> None:
    assert price_text(amount) == text
