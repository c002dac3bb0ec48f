"""Pricing spans at ingestion (first cut: the client's cost, else unknown).

Replaced by the price-table lookup; ``apply_prices`` keeps its signature.
"""

from __future__ import annotations

from collections.abc import Sequence

from traces.core.records import COST_CLIENT, COST_NONE, COST_UNKNOWN, SpanRecord
from traces.models import Span


def apply_prices(rows: Sequence[Span], records: Sequence[SpanRecord]) -> None:
    """Set ``cost_usd``, ``cost_source`` and ``price_version`` on ``rows``."""
    for row, record in zip(rows, records, strict=True):
        if record.client_cost_usd is not None:
            row.cost_source = COST_CLIENT
        elif record.is_model_call:
            row.cost_source = COST_UNKNOWN
        else:
            row.cost_source = COST_NONE
