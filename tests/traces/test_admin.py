"""The traces admin: price tables edited with their rules, one made active
by an action; spans and score exports only shown."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from traces.models import PriceTable, ScoreExport, Span
from traces.services.pricing import active_prices

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 2, tzinfo=UTC)
TABLES = "/admin/traces/pricetable/"


def inline(prefix: str = "rules", **first) -> dict:
    data = {
        f"{prefix}-TOTAL_FORMS": "1",
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    data.update({f"{prefix}-0-{key}": value for key, value in first.items()})
    return data


def test_members_cannot_reach_the_price_tables(member_client) -> None:
    assert member_client.get(TABLES).status_code == 302


def test_a_table_is_made_with_its_rules_inactive(staff_client) -> None:
    response = staff_client.post(
        f"{TABLES}add/",
        {
            "version": "admin-1",
            "source": "admin",
            "notes": "",
            **inline(
                position="0",
                pattern="house-*",
                provider="",
                input_per_mtok="1.5",
                output_per_mtok="3",
            ),
        },
    )
    assert response.status_code == 302
    table = PriceTable.objects.get(version="admin-1")
    assert table.active is False
    assert list(table.rules.values_list("pattern", "input_per_mtok")) == [
        ("house-*", Decimal("1.5"))
    ]


def test_the_make_active_action_swaps_the_active_table(staff_client) -> None:
    shipped = PriceTable.objects.get(active=True)
    mine = PriceTable.objects.create(version="admin-2")
    mine.rules.create(pattern="m", input_per_mtok=1, output_per_mtok=1)
    active_prices()
    response = staff_client.post(
        TABLES,
        {"action": "make_active", "_selected_action": [mine.pk]},
        follow=True,
    )
    assert "Price table admin-2 is now the active one." in response.content.decode()
    assert list(PriceTable.objects.filter(active=True)) == [mine]
    assert active_prices().version == "admin-2"
    shipped.refresh_from_db()
    assert shipped.active is False


def test_the_action_refuses_two_tables_at_once(staff_client) -> None:
    other = PriceTable.objects.create(version="admin-3")
    shipped = PriceTable.objects.get(active=True)
    response = staff_client.post(
        TABLES,
        {"action": "make_active", "_selected_action": [other.pk, shipped.pk]},
        follow=True,
    )
    assert "Select exactly one price table." in response.content.decode()
    assert list(PriceTable.objects.filter(active=True)) == [shipped]


def test_editing_a_rule_of_the_active_table_is_priced_at_once(staff_client) -> None:
    table = PriceTable.objects.get(active=True)
    assert active_prices().rules[0].pattern == "ollama:*"
    rules = list(table.rules.order_by("position", "pk"))
    data = {
        "version": table.version,
        "source": table.source,
        "notes": table.notes,
        "rules-TOTAL_FORMS": str(len(rules)),
        "rules-INITIAL_FORMS": str(len(rules)),
        "rules-MIN_NUM_FORMS": "0",
        "rules-MAX_NUM_FORMS": "1000",
    }
    for n, rule in enumerate(rules):
        for field in (
            "position",
            "pattern",
            "provider",
            "input_per_mtok",
            "output_per_mtok",
            "cached_input_per_mtok",
            "cache_write_per_mtok",
            "effective_from",
            "effective_to",
        ):
            value = getattr(rule, field)
            data[f"rules-{n}-{field}"] = "" if value is None else str(value)
        data[f"rules-{n}-id"] = str(rule.pk)
        data[f"rules-{n}-table"] = str(table.pk)
    data["rules-0-pattern"] = "local:*"
    response = staff_client.post(f"{TABLES}{table.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert active_prices().rules[0].pattern == "local:*"


@pytest.mark.parametrize("model", ["span", "scoreexport"])
def test_spans_and_score_exports_are_read_only(staff_client, model) -> None:
    Span.objects.create(
        trace_id="ab" * 16,
        span_id="01" * 8,
        name="chat",
        source="otlp",
        started_at=T0,
        ended_at=T0,
    )
    ScoreExport.objects.create(run_ref="run-1")
    listing = staff_client.get(f"/admin/traces/{model}/")
    assert listing.status_code == 200
    assert staff_client.get(f"/admin/traces/{model}/add/").status_code == 403
    pk = (Span if model == "span" else ScoreExport).objects.get().pk
    page = staff_client.get(f"/admin/traces/{model}/{pk}/change/")
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
