"""The models evalsite saw with no price, and the active price table, as
the prices page shows them. Reads only.

A model is "unpriced" when a span calling it was stored with an unknown
cost and no table version (no rule matched it): a model the table knows
but whose call reported no token counts is not listed, since no price
would help it. Each model also says whether the active table prices it
now (a rule added since), which is when ``load_prices --reprice-unknown``
gives its spans a cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Final

from django.db.models import Count, Max, Min, Sum, Value
from django.db.models.functions import Coalesce, NullIf

from traces.core.prices import PriceRuleSpec, match_rule
from traces.core.records import COST_UNKNOWN
from traces.models import PriceTable, Span
from traces.services.pricing import active_prices, rule_spec

UNPRICED_MAX: Final = 200


@dataclass(frozen=True, slots=True)
class UnpricedModel:
    model: str
    provider: str
    spans: int
    first_seen: datetime
    last_seen: datetime
    input_tokens: int | None
    output_tokens: int | None
    priced_now: bool


@dataclass(frozen=True, slots=True)
class ActiveTable:
    version: str
    source: str
    notes: str
    created_at: datetime
    rules: tuple[PriceRuleSpec, ...]
    other_versions: int


def unpriced_models(*, limit: int = UNPRICED_MAX) -> list[UnpricedModel]:
    """Models with no price, the most called first (at most ``limit``)."""
    rows = (
        Span.objects.filter(cost_source=COST_UNKNOWN, price_version="")
        .annotate(model=Coalesce(NullIf("response_model", Value("")), "request_model"))
        .values("model", "provider")
        .annotate(
            spans=Count("pk"),
            first_seen=Min("started_at"),
            last_seen=Max("started_at"),
            input_tokens=Sum("input_tokens"),
            output_tokens=Sum("output_tokens"),
        )
        .order_by("-spans", "model", "provider")[:limit]
    )
    prices = active_prices()
    found = []
    for row in rows:
        rule = None
        if prices is not None:
            rule = match_rule(
                prices.rules,
                response_model="",
                request_model=row["model"],
                provider=row["provider"],
                on=row["last_seen"].date(),
            )
        found.append(
            UnpricedModel(
                model=row["model"],
                provider=row["provider"],
                spans=row["spans"],
                first_seen=row["first_seen"],
                last_seen=row["last_seen"],
                input_tokens=row["input_tokens"],
                output_tokens=row["output_tokens"],
                priced_now=rule is not None,
            )
        )
    return found


def active_table() -> ActiveTable | None:
    """The active table with its rules in order (``None`` when none is)."""
    table = PriceTable.objects.filter(active=True).first()
    if table is None:
        return None
    rules = tuple(rule_spec(row) for row in table.rules.order_by("position", "pk"))
    return ActiveTable(
        version=table.version,
        source=table.source,
        notes=table.notes,
        created_at=table.created_at,
        rules=rules,
        other_versions=PriceTable.objects.exclude(pk=table.pk).count(),
    )


def price_text(amount: Decimal | None) -> str:
    """A price per 1M tokens as the page writes it (``$2.50``, ``$0.075``)."""
    if amount is None:
        return ""
    text = format(amount.normalize(), "f")
    whole, _, fraction = text.partition(".")
    return f"${whole}.{fraction.ljust(2, '0')}"
