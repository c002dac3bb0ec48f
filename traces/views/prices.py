"""The prices page: models seen with no price, and the active price table
(login required, like every page). Thin: the reads are
``traces.services.unpriced``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from traces.core.prices import PriceRuleSpec
from traces.services.unpriced import (
    UNPRICED_MAX,
    UnpricedModel,
    active_table,
    price_text,
    unpriced_models,
)


def _count(value: int | None) -> str:
    return "not reported" if value is None else f"{value:,}"


def _model_row(model: UnpricedModel) -> dict[str, Any]:
    if model.input_tokens is None and model.output_tokens is None:
        tokens = "not reported"
    else:
        tokens = f"{_count(model.input_tokens)} / {_count(model.output_tokens)}"
    return {
        "model": model.model,
        "provider": model.provider,
        "calls": f"{model.spans:,}",
        "first_seen": model.first_seen,
        "last_seen": model.last_seen,
        "tokens": tokens,
        "priced_now": model.priced_now,
    }


def _dates(rule: PriceRuleSpec) -> str:
    start, end = rule.effective_from, rule.effective_to
    if start and end:
        return f"{start.isoformat()} to {end.isoformat()}"
    if start:
        return f"from {start.isoformat()}"
    if end:
        return f"until {end.isoformat()}"
    return "always"


def _rule_row(position: int, rule: PriceRuleSpec) -> dict[str, Any]:
    free = rule.input == 0 and rule.output == 0
    return {
        "position": position,
        "pattern": rule.pattern,
        "provider": rule.provider or "any",
        "input": price_text(rule.input),
        "output": price_text(rule.output),
        "cached_input": price_text(rule.cached_input) or "as input",
        "cache_write": price_text(rule.cache_write) or "as input",
        "dates": _dates(rule),
        "free": free,
    }


@login_required
def unknown_models(request: HttpRequest) -> HttpResponse:
    """Models with no price (most called first) and the active table's rules."""
    table = active_table()
    rules = (
        [_rule_row(n, rule) for n, rule in enumerate(table.rules, 1)] if table else []
    )
    unpriced = [_model_row(model) for model in unpriced_models()]
    return render(
        request,
        "traces/unknown_models.html",
        {
            "unpriced": unpriced,
            "unpriced_capped": len(unpriced) >= UNPRICED_MAX,
            "unpriced_max": UNPRICED_MAX,
            "any_priced_now": any(m["priced_now"] for m in unpriced),
            "table": table,
            "rules": rules,
        },
    )
