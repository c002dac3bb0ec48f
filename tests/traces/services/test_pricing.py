"""Pricing at ingestion from the active table; loading and activating tables."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from core.errors import Conflict, NotFound
from traces.core.prices import PriceRuleSpec, PriceTableSpec
from traces.core.records import SOURCE_OTLP, SpanRecord, TokenUsage
from traces.models import PriceTable, Span
from traces.services import pricing
from traces.services.pricing import (
    active_prices,
    apply_prices,
    price_table_load,
    spans_reprice_unknown,
)
from traces.services.spans import span_row, store_spans

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def table(version: str, *rules: PriceRuleSpec) -> PriceTableSpec:
    return PriceTableSpec(version=version, rules=rules, notes="test")


def rule(pattern: str, input_: str, output: str, **fields) -> PriceRuleSpec:
    return PriceRuleSpec(
        pattern=pattern, input=Decimal(input_), output=Decimal(output), **fields
    )


def record(span_id: str = "01" * 8, **fields) -> SpanRecord:
    fields.setdefault("started_at", T0)
    return SpanRecord(
        trace_id="cd" * 16,
        span_id=span_id,
        name="chat",
        ended_at=T0 + timedelta(seconds=1),
        source=SOURCE_OTLP,
        **fields,
    )


def priced(*records: SpanRecord) -> list[tuple]:
    rows = [span_row(r) for r in records]
    apply_prices(rows, records)
    return [(row.cost_usd, row.cost_source, row.price_version) for row in rows]


@pytest.fixture
def test_table() -> PriceTable:
    return price_table_load(
        table(
            "t-1",
            rule("gpt-4o-mini*", "0.15", "0.60", cached_input=Decimal("0.075")),
            rule("free-local", "0", "0"),
        )
    ).table


def test_a_known_model_is_priced_from_the_active_table_with_its_version(
    test_table,
) -> None:
    usage = TokenUsage(input=2000, output=1000, cached_input=1000, reasoning=400)
    assert priced(record(request_model="gpt-4o-mini", usage=usage)) == [
        (Decimal("0.000825"), "computed", "t-1")
    ]


def test_a_local_model_priced_zero_is_computed_not_unknown(test_table) -> None:
    usage = TokenUsage(input=10, output=10)
    assert priced(record(request_model="free-local", usage=usage)) == [
        (Decimal(0), "computed", "t-1")
    ]


def test_a_client_cost_wins_over_the_computed_one(test_table) -> None:
    sent = record(
        request_model="gpt-4o-mini",
        usage=TokenUsage(input=10, output=10),
        client_cost_usd=Decimal("0.5"),
    )
    assert priced(sent) == [(Decimal("0.5"), "client", "")]


def test_a_client_cost_that_is_no_amount_is_replaced_by_the_table(
    test_table,
) -> None:
    sent = record(
        request_model="gpt-4o-mini",
        usage=TokenUsage(input=1_000_000, output=0),
        client_cost_usd=Decimal("NaN"),
    )
    assert priced(sent) == [(Decimal("0.15"), "computed", "t-1")]


def test_an_unknown_model_is_unknown_never_zero(test_table) -> None:
    usage = TokenUsage(input=10, output=10)
    assert priced(record(request_model="mystery-9", usage=usage)) == [
        (None, "unknown", "")
    ]


def test_a_known_model_without_token_counts_is_unknown_but_keeps_the_version(
    test_table,
) -> None:
    assert priced(record(request_model="gpt-4o-mini")) == [(None, "unknown", "t-1")]


def test_a_span_that_is_no_model_call_gets_no_cost_source(test_table) -> None:
    assert priced(record(tool_name="dig")) == [(None, "", "")]


def test_without_an_active_table_every_model_call_is_unknown() -> None:
    PriceTable.objects.update(active=False)
    pricing.prices_forget()
    usage = TokenUsage(input=10, output=10)
    assert priced(record(request_model="gpt-4o-mini", usage=usage)) == [
        (None, "unknown", "")
    ]


def test_the_shipped_table_is_active_after_migrating() -> None:
    active = PriceTable.objects.get(active=True)
    assert (active.source, active.rules.count() > 40) == ("shipped", True)
    usage = TokenUsage(input=1_000_000, output=1_000_000)
    assert priced(record(request_model="gpt-4o-2024-08-06", usage=usage)) == [
        (Decimal("12.5"), "computed", active.version)
    ]


def test_the_active_table_is_read_once_and_kept_between_batches(
    test_table, django_assert_num_queries
) -> None:
    active_prices()
    with django_assert_num_queries(1):
        assert active_prices().version == "t-1"


def test_activating_another_version_is_seen_by_the_next_batch(test_table) -> None:
    usage = TokenUsage(input=1_000_000, output=0)
    assert priced(record(request_model="gpt-4o-mini", usage=usage))[0][0] == (
        Decimal("0.15")
    )
    # Another process activates a new version (no forget in this one).
    other = PriceTable.objects.create(version="t-2")
    other.rules.create(
        pattern="gpt-4o-mini", input_per_mtok=Decimal(1), output_per_mtok=0
    )
    PriceTable.objects.filter(pk=test_table.pk).update(active=False)
    PriceTable.objects.filter(pk=other.pk).update(active=True)
    assert priced(record(request_model="gpt-4o-mini", usage=usage)) == [
        (Decimal(1), "computed", "t-2")
    ]


def test_an_in_place_edit_elsewhere_is_seen_after_the_recheck_interval(
    test_table, monkeypatch
) -> None:
    usage = TokenUsage(input=1_000_000, output=0)
    priced(record(request_model="gpt-4o-mini", usage=usage))
    test_table.rules.filter(pattern="gpt-4o-mini*").update(input_per_mtok=3)
    assert priced(record(request_model="gpt-4o-mini", usage=usage))[0][0] == (
        Decimal("0.15")
    )
    monkeypatch.setattr(pricing, "PRICES_RECHECK_S", 0.0)
    assert priced(record(request_model="gpt-4o-mini", usage=usage))[0][0] == (
        Decimal(3)
    )


def test_loading_a_table_makes_it_the_only_active_one(test_table) -> None:
    result = price_table_load(table("t-2", rule("m", "1", "1")))
    assert result.outcome == "created"
    assert list(PriceTable.objects.filter(active=True).values_list("version")) == [
        ("t-2",)
    ]
    assert list(result.table.rules.values_list("position", "pattern")) == [(0, "m")]


def test_loading_the_same_version_again_changes_nothing(test_table) -> None:
    again = price_table_load(
        table(
            "t-1",
            rule("gpt-4o-mini*", "0.150", "0.6", cached_input=Decimal("0.075")),
            rule("free-local", "0", "0"),
        )
    )
    assert (again.outcome, again.table.pk) == ("unchanged", test_table.pk)
    assert PriceTable.objects.filter(version="t-1").count() == 1


def test_loading_an_older_stored_version_activates_it(test_table) -> None:
    price_table_load(table("t-2", rule("m", "1", "1")))
    back = price_table_load(
        table(
            "t-1",
            rule("gpt-4o-mini*", "0.15", "0.60", cached_input=Decimal("0.075")),
            rule("free-local", "0", "0"),
        )
    )
    assert back.outcome == "activated"
    assert PriceTable.objects.get(active=True).version == "t-1"


def test_a_stored_version_with_other_rules_is_a_conflict_and_writes_nothing(
    test_table,
) -> None:
    before = list(PriceTable.objects.values_list("version", "active"))
    with pytest.raises(Conflict, match="already stored with other rules"):
        price_table_load(table("t-1", rule("m", "9", "9")))
    assert list(PriceTable.objects.values_list("version", "active")) == before


def test_repricing_gives_unknown_spans_a_cost_once_their_model_is_priced(
    test_table,
) -> None:
    usage = TokenUsage(input=1_000_000, output=0)
    store_spans(
        [
            record("01" * 8, request_model="new-model", usage=usage),
            record("02" * 8, request_model="still-unknown", usage=usage),
            record("03" * 8, request_model="new-model"),
        ]
    )
    price_table_load(
        table("t-2", rule("new-model", "4", "8", effective_from=date(2026, 1, 1)))
    )
    assert spans_reprice_unknown(batch=1) == 1
    assert sorted(
        Span.objects.values_list("span_id", "cost_usd", "cost_source", "price_version")
    ) == [
        ("01" * 8, Decimal(4), "computed", "t-2"),
        ("02" * 8, None, "unknown", ""),
        ("03" * 8, None, "unknown", ""),
    ]


def test_activating_a_stored_table_deactivates_the_other(test_table) -> None:
    older = PriceTable.objects.exclude(pk=test_table.pk).get(source="shipped")
    assert pricing.price_table_activate(older.pk).active
    assert list(PriceTable.objects.filter(active=True).values_list("pk")) == [
        (older.pk,)
    ]
    assert active_prices().version == older.version


def test_activating_a_missing_table_is_not_found() -> None:
    with pytest.raises(NotFound):
        pricing.price_table_activate(10**9)


def test_a_model_seen_again_is_not_matched_against_every_rule_again(
    test_table, monkeypatch
) -> None:
    calls = []
    original = pricing.match_rule

    def counting(*args, **kwargs):
        calls.append(kwargs["request_model"])
        return original(*args, **kwargs)

    monkeypatch.setattr(pricing, "match_rule", counting)
    usage = TokenUsage(input=1, output=1)
    batch = [
        record(f"{n:016x}", request_model="mystery", usage=usage) for n in range(5)
    ]
    assert {row[1] for row in priced(*batch)} == {"unknown"}
    assert priced(record(request_model="gpt-4o-mini", usage=usage))[0][1] == "computed"
    assert calls == ["mystery", "gpt-4o-mini"]
