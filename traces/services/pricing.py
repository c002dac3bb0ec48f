"""Pricing spans from the active price table, and loading new tables.

``apply_prices`` prices a batch at ingestion (``traces.services.spans``
calls it before the insert): a cost the client sent wins (``client``); a
model call the active table has a rule for, with its input and output
token counts known, is ``computed`` and records the table's version; any
other model call is ``unknown`` (never 0); a span that is no model call (a
tool call, an agent step) gets ``""``. The rules themselves are
``traces.core.prices``.

The active table is read once and kept per process. Each batch checks, in
one indexed query, which table is active: activating another version is
seen at once; a table that is saved through ``price_table_load`` or the
admin in this process is forgotten at once, and an in-place edit made in
another process is seen within ``PRICES_RECHECK_S``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Final

from django.db import transaction

from core.errors import Conflict, NotFound, SchemaInvalid, SchemaProblem
from traces.core.prices import (
    PriceRuleSpec,
    PriceTableSpec,
    Usage,
    match_rule,
    price_table_from_text,
    span_cost,
)
from traces.core.records import (
    COST_CLIENT,
    COST_COMPUTED,
    COST_NONE,
    COST_UNKNOWN,
    SpanRecord,
)
from traces.models import PriceRule, PriceTable, Span

logger = logging.getLogger(__name__)

PRICES_RECHECK_S: Final = 60.0
PRICE_FILE_MAX_BYTES: Final = 4 * 1024 * 1024
REPRICE_BATCH: Final = 1000
MATCHES_MAX: Final = 4096


@dataclass(frozen=True, slots=True)
class ActivePrices:
    """The active table's version and its rules in order."""

    pk: int
    version: str
    rules: tuple[PriceRuleSpec, ...]


@dataclass(frozen=True, slots=True)
class Priced:
    cost_usd: Decimal | None
    cost_source: str
    price_version: str


@dataclass(slots=True)
class _Cache:
    stamp: tuple[int, str, datetime] | None = None
    prices: ActivePrices | None = None
    loaded_at: float = 0.0
    # Which rule priced a (response model, request model, provider, day):
    # the same few models come back in every batch, and trying every rule
    # on an unknown model costs ~150 us.
    matches: dict[tuple[str, str, str, date], PriceRuleSpec | None] = field(
        default_factory=dict
    )


_CACHE = _Cache()


def prices_forget() -> None:
    """Drop this process's copy of the active table (read again next time)."""
    _CACHE.stamp = None
    _CACHE.prices = None
    _CACHE.loaded_at = 0.0
    _CACHE.matches = {}


def rule_spec(row: PriceRule) -> PriceRuleSpec:
    return PriceRuleSpec(
        pattern=row.pattern,
        provider=row.provider,
        input=row.input_per_mtok,
        output=row.output_per_mtok,
        cached_input=row.cached_input_per_mtok,
        cache_write=row.cache_write_per_mtok,
        effective_from=row.effective_from,
        effective_to=row.effective_to,
    )


def active_prices() -> ActivePrices | None:
    """The active price table (``None`` when no table is active)."""
    # created_at too: a table rolled back and made again (the tests) may
    # get the same pk and version.
    stamp = (
        PriceTable.objects.filter(active=True)
        .values_list("pk", "version", "created_at")
        .first()
    )
    if stamp is None:
        prices_forget()
        return None
    fresh = time.monotonic() - _CACHE.loaded_at < PRICES_RECHECK_S
    if _CACHE.prices is not None and _CACHE.stamp == stamp and fresh:
        return _CACHE.prices
    rows = PriceRule.objects.filter(table_id=stamp[0]).order_by("position", "pk")
    prices = ActivePrices(
        pk=stamp[0], version=stamp[1], rules=tuple(rule_spec(row) for row in rows)
    )
    _CACHE.stamp, _CACHE.prices, _CACHE.loaded_at = stamp, prices, time.monotonic()
    _CACHE.matches = {}
    return prices


def _rule_for(
    prices: ActivePrices,
    response_model: str,
    request_model: str,
    provider: str,
    day: date,
) -> PriceRuleSpec | None:
    key = (response_model, request_model, provider, day)
    matches = _CACHE.matches if _CACHE.prices is prices else {}
    if key in matches:
        return matches[key]
    rule = match_rule(
        prices.rules,
        response_model=response_model,
        request_model=request_model,
        provider=provider,
        on=day,
    )
    if len(matches) >= MATCHES_MAX:
        matches.clear()
    matches[key] = rule
    return rule


def _utc_date(moment: datetime) -> date:
    # A naive time (never from the ingest paths) is taken as UTC.
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).date()


def price_call(
    prices: ActivePrices | None,
    *,
    response_model: str,
    request_model: str,
    provider: str,
    started_at: datetime,
    usage: Usage,
) -> Priced:
    """The computed price of one model call, or ``unknown``.

    An unknown cost from a known model (no token counts) records the
    version, so the unknown-models page can tell it from a model the table
    has no rule for (``price_version`` empty).
    """
    if prices is None:
        return Priced(None, COST_UNKNOWN, "")
    rule = _rule_for(
        prices, response_model, request_model, provider, _utc_date(started_at)
    )
    if rule is None:
        return Priced(None, COST_UNKNOWN, "")
    cost = span_cost(rule, usage)
    if cost is None:
        return Priced(None, COST_UNKNOWN, prices.version)
    return Priced(cost, COST_COMPUTED, prices.version)


def _client_cost(value: Decimal | None) -> Decimal | None:
    # A cost that is no amount (NaN, infinite, negative) is not the
    # client's price; the table prices the span instead.
    if value is None or not value.is_finite() or value < 0:
        return None
    return value


def apply_prices(rows: Sequence[Span], records: Sequence[SpanRecord]) -> None:
    """Set ``cost_usd``, ``cost_source`` and ``price_version`` on ``rows``
    (unsaved ``Span`` rows made from ``records``, in the same order).

    Reads the active table at most once per batch; writes nothing.
    """
    prices: ActivePrices | None = None
    looked = False
    for row, record in zip(rows, records, strict=True):
        client = _client_cost(record.client_cost_usd)
        if client is not None:
            priced = Priced(client, COST_CLIENT, "")
        elif not record.is_model_call:
            priced = Priced(None, COST_NONE, "")
        else:
            if not looked:
                prices, looked = active_prices(), True
            usage = record.usage
            priced = price_call(
                prices,
                response_model=record.response_model,
                request_model=record.request_model,
                provider=record.provider,
                started_at=record.started_at,
                usage=Usage(
                    input=usage.input,
                    output=usage.output,
                    cached_input=usage.cached_input,
                    cache_write=usage.cache_write,
                ),
            )
        row.cost_usd = priced.cost_usd
        row.cost_source = priced.cost_source
        row.price_version = priced.price_version


def price_file_read(path: Path) -> PriceTableSpec:
    """The price table in the file at ``path``: ``NotFound`` when there is
    no such file, ``SchemaInvalid`` (every problem, by rule index and
    field) when it is no valid price table."""
    try:
        size = path.stat().st_size
    except OSError:
        raise NotFound(f"no price file at {path}") from None
    if not path.is_file():
        raise NotFound(f"{path} is not a file")
    if size > PRICE_FILE_MAX_BYTES:
        problem = SchemaProblem(
            "$", "too_large", f"{size} bytes; at most {PRICE_FILE_MAX_BYTES}"
        )
        raise SchemaInvalid("the price file is too large", problems=[problem])
    return price_table_from_text(path.read_bytes())


@dataclass(frozen=True, slots=True)
class LoadResult:
    table: PriceTable
    # "created" (a new version), "activated" (the same version and rules
    # were loaded before) or "unchanged" (it was already the active one).
    outcome: str


def _same_rules(table: PriceTable, spec: PriceTableSpec) -> bool:
    stored = [rule_spec(row) for row in table.rules.order_by("position", "pk")]
    wanted = [
        PriceRuleSpec(
            pattern=rule.pattern,
            provider=rule.provider,
            input=rule.input,
            output=rule.output,
            cached_input=rule.cached_input,
            cache_write=rule.cache_write,
            effective_from=rule.effective_from,
            effective_to=rule.effective_to,
        )
        for rule in spec.rules
    ]
    return stored == wanted


def price_table_load(
    spec: PriceTableSpec, *, source: str = "file", activate: bool = True
) -> LoadResult:
    """Store ``spec`` as a new table version and make it the active one.

    Loading a version that is stored with the same rules only activates
    it (safe to run twice); a stored version with other rules is a
    ``Conflict`` (give the file a new version). One transaction; the
    previously active table stays stored, inactive. Logs
    ``[Traces] price_table_loaded``.
    """
    with transaction.atomic():
        current = PriceTable.objects.select_for_update().filter(active=True).first()
        existing = PriceTable.objects.filter(version=spec.version).first()
        if existing is not None:
            if not _same_rules(existing, spec):
                raise Conflict(
                    f"price table version {spec.version} is already stored with "
                    "other rules; give the file a new version",
                    code="version_taken",
                )
            if existing.active or not activate:
                outcome, table = "unchanged", existing
            else:
                outcome, table = "activated", existing
        else:
            outcome = "created"
            table = PriceTable.objects.create(
                version=spec.version, source=source, notes=spec.notes
            )
            PriceRule.objects.bulk_create(
                PriceRule(
                    table=table,
                    position=position,
                    pattern=rule.pattern,
                    provider=rule.provider,
                    input_per_mtok=rule.input,
                    output_per_mtok=rule.output,
                    cached_input_per_mtok=rule.cached_input,
                    cache_write_per_mtok=rule.cache_write,
                    effective_from=rule.effective_from,
                    effective_to=rule.effective_to,
                )
                for position, rule in enumerate(spec.rules)
            )
        if activate and not table.active:
            if current is not None:
                PriceTable.objects.filter(pk=current.pk).update(active=False)
            PriceTable.objects.filter(pk=table.pk).update(active=True)
            table.active = True
    prices_forget()
    logger.info(
        "[Traces] price_table_loaded version=%s outcome=%s rules=%s active=%s",
        table.version,
        outcome,
        len(spec.rules),
        table.active,
        extra={"version": table.version, "outcome": outcome},
    )
    return LoadResult(table=table, outcome=outcome)


def price_table_activate(pk: int) -> PriceTable:
    """Make table ``pk`` the active one (the one before it stays stored,
    inactive); ``NotFound`` when there is no such table. One transaction;
    logs ``[Traces] price_table_activated``."""
    with transaction.atomic():
        table = PriceTable.objects.select_for_update().filter(pk=pk).first()
        if table is None:
            raise NotFound(f"no price table {pk}")
        if not table.active:
            PriceTable.objects.filter(active=True).update(active=False)
            PriceTable.objects.filter(pk=pk).update(active=True)
            table.active = True
    prices_forget()
    logger.info(
        "[Traces] price_table_activated version=%s",
        table.version,
        extra={"version": table.version},
    )
    return table


def spans_reprice_unknown(*, batch: int = REPRICE_BATCH) -> int:
    """Price again, with the active table, every model call priced
    ``unknown``; returns how many got a cost.

    Walks the unknown spans by primary key, one short transaction per
    batch, so ingestion is never held up. Spans still unknown stay so.
    """
    prices = active_prices()
    if prices is None:
        return 0
    repriced = 0
    after = 0
    while True:
        rows = list(
            Span.objects.filter(cost_source=COST_UNKNOWN, pk__gt=after)
            .order_by("pk")
            .only(
                "pk",
                "provider",
                "request_model",
                "response_model",
                "started_at",
                "input_tokens",
                "output_tokens",
                "cached_input_tokens",
                "cache_write_tokens",
            )[:batch]
        )
        if not rows:
            break
        after = rows[-1].pk
        changed = []
        for row in rows:
            priced = price_call(
                prices,
                response_model=row.response_model,
                request_model=row.request_model,
                provider=row.provider,
                started_at=row.started_at,
                usage=Usage(
                    input=row.input_tokens,
                    output=row.output_tokens,
                    cached_input=row.cached_input_tokens,
                    cache_write=row.cache_write_tokens,
                ),
            )
            if priced.cost_source == COST_COMPUTED:
                row.cost_usd = priced.cost_usd
                row.cost_source = priced.cost_source
                row.price_version = priced.price_version
                changed.append(row)
        if changed:
            with transaction.atomic():
                Span.objects.bulk_update(
                    changed, ["cost_usd", "cost_source", "price_version"]
                )
            repriced += len(changed)
    logger.info(
        "[Traces] spans_repriced version=%s repriced=%s",
        prices.version,
        repriced,
        extra={"version": prices.version, "repriced": repriced},
    )
    return repriced
