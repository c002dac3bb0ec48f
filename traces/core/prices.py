"""The price table: its file format, which rule prices a span, and the cost.

Pure and deterministic: no I/O, no clock (the span's start is passed in).

The file (``traces/prices/prices.json`` ships with evalsite) is a JSON
object::

    {"version": "2026-11-01", "notes": "...",
     "rules": [{"pattern": "gpt-4o-mini*", "provider": "openai",
                "input": "0.15", "output": "0.60", "cachedInput": "0.075",
                "cacheWrite": null, "effectiveFrom": "2024-07-18",
                "effectiveTo": null, "note": "..."}]}

Prices are US dollars per 1M tokens, strings or numbers (read as exact
decimals, at most 6 decimal places). ``pattern`` is a shell glob on the
model id (``*``, ``?``, ``[...]``), matched case-insensitively; an empty
``provider`` matches every provider. ``effectiveFrom`` and ``effectiveTo``
are ISO dates, both inclusive (UTC date of the span's start).

Which rule: the response model is tried first, then the request model; for
each, the id as sent, then without a ``provider:`` or ``org/`` prefix
(``openai/gpt-4o`` -> ``gpt-4o``). The first rule in file order whose
pattern matches, whose provider matches (the span's provider, or the prefix
of the model id) and whose dates cover the span's start wins.

The cost (``span_cost``): input tokens count every prompt token, cached ones
included, as OpenAI's ``usage.prompt_tokens`` and the OpenTelemetry GenAI
``gen_ai.usage.input_tokens`` do. Cached-input tokens are priced at
``cachedInput`` (``input`` when the rule has none) and cache-write tokens at
``cacheWrite`` (else ``input``); neither is billed again as plain input, so
plain input = input - cached - cache write. When cached + cache write exceed
input, the source counted them apart from input (Anthropic's usage does),
and all input tokens are plain. Reasoning tokens are part of the output
tokens (OpenAI's ``completion_tokens_details``) and are not billed twice.
Unknown input or output token counts give an unknown cost (``None``), never
0.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any, Final

from core.errors import SchemaInvalid, SchemaProblem

PER_TOKENS: Final = Decimal(1_000_000)
# The stored cost's precision (``Span.cost_usd``: 10 decimal places).
COST_QUANTUM: Final = Decimal("1e-10")
PRICE_DECIMAL_PLACES: Final = 6
PRICE_MAX: Final = Decimal("99999999")  # 14 digits, 6 after the point
VERSION_MAX_CHARS: Final = 64
PATTERN_MAX_CHARS: Final = 200
PROVIDER_MAX_CHARS: Final = 64

TABLE_KEYS: Final = frozenset({"version", "notes", "rules"})
RULE_KEYS: Final = frozenset(
    {
        "pattern",
        "provider",
        "input",
        "output",
        "cachedInput",
        "cacheWrite",
        "effectiveFrom",
        "effectiveTo",
        "note",
    }
)


@dataclass(frozen=True, slots=True)
class PriceRuleSpec:
    """One rule: USD per 1M tokens for the models ``pattern`` matches."""

    pattern: str
    input: Decimal
    output: Decimal
    provider: str = ""
    cached_input: Decimal | None = None
    cache_write: Decimal | None = None
    effective_from: date | None = None
    effective_to: date | None = None
    note: str = ""

    def covers(self, day: date) -> bool:
        """Whether ``day`` lies within the rule's dates (both inclusive)."""
        if self.effective_from is not None and day < self.effective_from:
            return False
        return self.effective_to is None or day <= self.effective_to


@dataclass(frozen=True, slots=True)
class PriceTableSpec:
    version: str
    rules: tuple[PriceRuleSpec, ...]
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one call (``None``: not reported)."""

    input: int | None
    output: int | None
    cached_input: int | None = None
    cache_write: int | None = None


# --- The file --------------------------------------------------------------


def price_table_from_text(text: str | bytes) -> PriceTableSpec:
    """Parse and validate a price file; ``SchemaInvalid`` lists every problem.

    Numbers are read as exact decimals (``0.1`` is ``Decimal("0.1")``).
    """
    try:
        document = json.loads(text, parse_float=Decimal)
    except (ValueError, UnicodeDecodeError) as error:
        problem = SchemaProblem("$", "json", f"not valid JSON: {error}")
        raise SchemaInvalid(
            "the price file is not valid JSON", problems=[problem]
        ) from None
    return price_table_from_document(document)


def price_table_from_document(document: Any) -> PriceTableSpec:
    """Validate a decoded price file; ``SchemaInvalid`` names each rule index
    and field at fault (``rules[3].input``)."""
    problems: list[SchemaProblem] = []
    if not isinstance(document, dict):
        problems.append(SchemaProblem("$", "type", "must be a JSON object"))
        raise SchemaInvalid("the price file is invalid", problems=problems)
    for key in sorted(set(document) - TABLE_KEYS):
        problems.append(SchemaProblem(key, "unknown", f"unknown field {key!r}"))
    version = document.get("version")
    if not isinstance(version, str) or not version.strip():
        problems.append(
            SchemaProblem("version", "required", "must be a non-empty string")
        )
        version = ""
    elif len(version) > VERSION_MAX_CHARS:
        problems.append(
            SchemaProblem(
                "version", "too_long", f"at most {VERSION_MAX_CHARS} characters"
            )
        )
    notes = document.get("notes", "")
    if not isinstance(notes, str):
        problems.append(SchemaProblem("notes", "type", "must be a string"))
        notes = ""
    rules_in = document.get("rules")
    rules: list[PriceRuleSpec] = []
    if not isinstance(rules_in, list) or not rules_in:
        problems.append(
            SchemaProblem("rules", "required", "must be a non-empty list of rules")
        )
    else:
        for index, item in enumerate(rules_in):
            rule = _rule(item, f"rules[{index}]", problems)
            if rule is not None:
                rules.append(rule)
    if problems:
        raise SchemaInvalid("the price file is invalid", problems=problems)
    return PriceTableSpec(version=version.strip(), rules=tuple(rules), notes=notes)


def _rule(item: Any, where: str, problems: list[SchemaProblem]) -> PriceRuleSpec | None:
    if not isinstance(item, dict):
        problems.append(SchemaProblem(where, "type", "must be a JSON object"))
        return None
    before = len(problems)
    for key in sorted(set(item) - RULE_KEYS):
        problems.append(
            SchemaProblem(f"{where}.{key}", "unknown", f"unknown field {key!r}")
        )
    pattern = _text(item, "pattern", where, problems, PATTERN_MAX_CHARS, required=True)
    provider = _text(item, "provider", where, problems, PROVIDER_MAX_CHARS)
    note = _text(item, "note", where, problems, 10_000)
    input_price = _price(item, "input", where, problems, required=True)
    output_price = _price(item, "output", where, problems, required=True)
    cached = _price(item, "cachedInput", where, problems)
    write = _price(item, "cacheWrite", where, problems)
    start = _date(item, "effectiveFrom", where, problems)
    end = _date(item, "effectiveTo", where, problems)
    if start is not None and end is not None and end < start:
        problems.append(
            SchemaProblem(
                f"{where}.effectiveTo",
                "range",
                f"{end.isoformat()} is before effectiveFrom {start.isoformat()}",
            )
        )
    if len(problems) > before or input_price is None or output_price is None:
        return None
    return PriceRuleSpec(
        pattern=pattern,
        provider=provider,
        input=input_price,
        output=output_price,
        cached_input=cached,
        cache_write=write,
        effective_from=start,
        effective_to=end,
        note=note,
    )


def _text(
    item: dict[str, Any],
    key: str,
    where: str,
    problems: list[SchemaProblem],
    max_chars: int,
    *,
    required: bool = False,
) -> str:
    value = item.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        problems.append(
            SchemaProblem(
                f"{where}.{key}",
                "required" if value is None else "type",
                "must be a non-empty string" if required else "must be a string",
            )
        )
        return ""
    if len(value) > max_chars:
        problems.append(
            SchemaProblem(
                f"{where}.{key}", "too_long", f"at most {max_chars} characters"
            )
        )
        return ""
    return value.strip()


def parse_price(value: Any) -> Decimal:
    """``value`` (a string or a JSON number) as a price; ``ValueError`` with
    the reason when it is not a finite, non-negative amount with at most 6
    decimal places."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise ValueError("must be a number or a string holding one")
    try:
        # A float is read through its shortest repr: 0.1 is 0.1, not 0.1000...5.
        amount = Decimal(repr(value) if isinstance(value, float) else value)
    except InvalidOperation:
        raise ValueError(f"{value!r} is not a number") from None
    if not amount.is_finite():
        raise ValueError(f"{value!r} is not a finite number")
    if amount < 0:
        raise ValueError(f"{value!r} is negative")
    if amount > PRICE_MAX:
        raise ValueError(f"{value!r} is more than {PRICE_MAX} USD per 1M tokens")
    exponent = amount.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > PRICE_DECIMAL_PLACES:
        raise ValueError(
            f"{value!r} has more than {PRICE_DECIMAL_PLACES} decimal places"
        )
    return amount


def _price(
    item: dict[str, Any],
    key: str,
    where: str,
    problems: list[SchemaProblem],
    *,
    required: bool = False,
) -> Decimal | None:
    value = item.get(key)
    if value is None:
        if required:
            problems.append(
                SchemaProblem(
                    f"{where}.{key}", "required", "a price per 1M tokens is required"
                )
            )
        return None
    try:
        return parse_price(value)
    except ValueError as error:
        problems.append(SchemaProblem(f"{where}.{key}", "price", str(error)))
        return None


def _date(
    item: dict[str, Any], key: str, where: str, problems: list[SchemaProblem]
) -> date | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, str) and len(value) == 10:
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    problems.append(
        SchemaProblem(f"{where}.{key}", "date", f"{value!r} is not a date YYYY-MM-DD")
    )
    return None


def rule_to_document(rule: PriceRuleSpec) -> dict[str, Any]:
    """A rule as the file writes it (prices as strings, absent fields left out)."""
    out: dict[str, Any] = {"pattern": rule.pattern}
    if rule.provider:
        out["provider"] = rule.provider
    out["input"] = _price_text(rule.input)
    out["output"] = _price_text(rule.output)
    if rule.cached_input is not None:
        out["cachedInput"] = _price_text(rule.cached_input)
    if rule.cache_write is not None:
        out["cacheWrite"] = _price_text(rule.cache_write)
    if rule.effective_from is not None:
        out["effectiveFrom"] = rule.effective_from.isoformat()
    if rule.effective_to is not None:
        out["effectiveTo"] = rule.effective_to.isoformat()
    if rule.note:
        out["note"] = rule.note
    return out


def _price_text(amount: Decimal) -> str:
    return format(amount.normalize(), "f")


# --- Which rule ------------------------------------------------------------


def model_candidates(model: str) -> tuple[str, ...]:
    """The ids a model is matched as, in order: as sent (lowercase), then
    without an ``org/`` prefix, then also without a ``provider:`` prefix
    (``ollama:llama3:8b`` -> ``llama3:8b``)."""
    full = model.strip().lower()
    if not full:
        return ()
    found = [full]
    bare = full.rsplit("/", 1)[-1]
    found.append(bare)
    head, colon, tail = bare.partition(":")
    if colon and head and tail:
        found.append(tail)
    return tuple(dict.fromkeys(item for item in found if item))


def _prefix(model: str) -> str:
    text = model.strip().lower()
    for separator in (":", "/"):
        head, found, _ = text.partition(separator)
        if found and head:
            return head
    return ""


def match_rule(
    rules: Sequence[PriceRuleSpec],
    *,
    response_model: str,
    request_model: str,
    provider: str,
    on: date,
) -> PriceRuleSpec | None:
    """The rule that prices a span, or ``None`` (the model is unknown).

    See the module docstring for the order; ``on`` is the UTC date of the
    span's start.
    """
    dated = [rule for rule in rules if rule.covers(on)]
    for model in (response_model, request_model):
        providers = {provider.strip().lower(), _prefix(model)} - {""}
        for candidate in model_candidates(model):
            for rule in dated:
                if rule.provider and rule.provider.lower() not in providers:
                    continue
                if fnmatch.fnmatchcase(candidate, rule.pattern.lower()):
                    return rule
    return None


# --- The cost --------------------------------------------------------------


def span_cost(rule: PriceRuleSpec, usage: Usage) -> Decimal | None:
    """USD for ``usage`` at ``rule``'s prices, to 10 decimal places (half to
    even), or ``None`` when the input or output count is unknown.

    The billing rule is the module docstring's: cached and cache-write
    tokens are priced at their own rates and taken out of plain input.
    """
    if usage.input is None or usage.output is None:
        return None
    cached = usage.cached_input or 0
    written = usage.cache_write or 0
    plain = usage.input - cached - written
    if plain < 0:
        plain = usage.input
    cached_price = rule.input if rule.cached_input is None else rule.cached_input
    write_price = rule.input if rule.cache_write is None else rule.cache_write
    total = (
        plain * rule.input
        + cached * cached_price
        + written * write_price
        + usage.output * rule.output
    )
    return (total / PER_TOKENS).quantize(COST_QUANTUM, rounding=ROUND_HALF_EVEN)
