"""The prices page: unpriced models and the active table, behind login."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import reverse

from traces.core.prices import PriceRuleSpec, PriceTableSpec
from traces.core.records import SOURCE_OTLP, SpanRecord, TokenUsage
from traces.models import PriceTable
from traces.services.pricing import price_table_load
from traces.services.spans import store_spans

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
URL = "/traces/prices/"


def test_the_page_needs_a_login(client) -> None:
    response = client.get(URL)
    assert (response.status_code, response["Location"]) == (
        302,
        f"{resolve_url(settings.LOGIN_URL)}?next={URL}",
    )


def test_unpriced_models_are_listed_with_calls_and_tokens(member_client) -> None:
    assert reverse("traces:unknown-models") == URL
    store_spans(
        [
            SpanRecord(
                trace_id="34" * 16,
                span_id=f"{n:016x}",
                name="chat",
                started_at=T0,
                ended_at=T0,
                source=SOURCE_OTLP,
                provider="acme",
                request_model="acme-large",
                usage=TokenUsage(input=1200, output=34),
            )
            for n in (1, 2)
        ]
    )
    response = member_client.get(URL)
    assert response.status_code == 200
    assert [row["model"] for row in response.context["unpriced"]] == ["acme-large"]
    row = response.context["unpriced"][0]
    assert (row["provider"], row["calls"], row["tokens"]) == (
        "acme",
        "2",
        "2,400 / 68",
    )
    html = response.content.decode()
    assert "<code>acme-large</code>" in html
    assert "2,400 / 68" in html


def test_the_active_table_and_its_rules_are_shown(member_client) -> None:
    table = PriceTable.objects.get(active=True)
    response = member_client.get(URL)
    html = response.content.decode()
    assert f"Active price table: version {table.version}" in html
    rules = response.context["rules"]
    assert len(rules) == table.rules.count()
    mini = next(r for r in rules if r["pattern"] == "gpt-4o-mini*")
    assert {k: mini[k] for k in ("input", "output", "cached_input", "cache_write")} == {
        "input": "$0.15",
        "output": "$0.60",
        "cached_input": "$0.075",
        "cache_write": "as input",
    }
    assert "Every model call so far had a price" in html
    assert "Edit in the admin" not in html


def test_staff_get_a_link_to_edit_the_table(staff_client) -> None:
    html = staff_client.get(URL).content.decode()
    assert 'href="/admin/traces/pricetable/"' in html


def test_without_an_active_table_the_page_says_so(member_client) -> None:
    PriceTable.objects.update(active=False)
    html = member_client.get(URL).content.decode()
    assert "No active price table" in html


def test_the_price_column_appears_once_a_listed_model_is_priced(
    member_client,
) -> None:
    store_spans(
        [
            SpanRecord(
                trace_id="56" * 16,
                span_id="01" * 8,
                name="chat",
                started_at=T0,
                ended_at=T0,
                source=SOURCE_OTLP,
                request_model="acme-large",
                usage=TokenUsage(input=1, output=1),
            )
        ]
    )
    assert "<th>Price</th>" not in member_client.get(URL).content.decode()
    price_table_load(
        PriceTableSpec(
            version="acme-1",
            rules=(PriceRuleSpec("acme-*", Decimal(1), Decimal(1)),),
        )
    )
    html = member_client.get(URL).content.decode()
    assert "<th>Price</th>" in html
    assert "priced now" in html
    assert "load_prices --reprice-unknown" in html
