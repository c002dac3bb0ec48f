"""The price table: the file format, which rule prices a call, the cost."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from core.errors import SchemaInvalid
from traces.core.prices import (
    PriceRuleSpec,
    Usage,
    match_rule,
    model_candidates,
    parse_price,
    price_table_from_document,
    price_table_from_text,
    rule_to_document,
    span_cost,
)

SHIPPED = Path(__file__).resolve().parents[3] / "traces" / "prices" / "prices.json"
DAY = date(2026, 11, 1)


def rule(pattern: str, **fields) -> PriceRuleSpec:
    fields.setdefault("input", Decimal(1))
    fields.setdefault("output", Decimal(2))
    return PriceRuleSpec(pattern=pattern, **fields)


def match(rules, model: str = "", response: str = "", provider: str = "", on=DAY):
    return match_rule(
        rules, response_model=response, request_model=model, provider=provider, on=on
    )


def problems(document) -> list[tuple[str, str]]:
    with pytest.raises(SchemaInvalid) as caught:
        price_table_from_document(document)
    return [(p.path, p.code) for p in caught.value.problems]


# --- The file ---------------------------------------------------------------


def test_a_file_reads_prices_as_exact_decimals_from_strings_and_numbers() -> None:
    table = price_table_from_text(
        '{"version": "v1", "notes": "n", "rules": [{"pattern": "m*", '
        '"input": 0.1, "output": "0.30", "cachedInput": 0.05, "cacheWrite": 1,'
        ' "effectiveFrom": "2026-01-01", "effectiveTo": "2026-12-31"}]}'
    )
    only = table.rules[0]
    assert (table.version, table.notes) == ("v1", "n")
    assert (only.input, only.output, only.cached_input, only.cache_write) == (
        Decimal("0.1"),
        Decimal("0.30"),
        Decimal("0.05"),
        Decimal(1),
    )
    assert (only.effective_from, only.effective_to) == (
        date(2026, 1, 1),
        date(2026, 12, 31),
    )


def test_a_bad_file_names_every_rule_index_and_field_at_fault() -> None:
    found = problems(
        {
            "version": "v1",
            "rules": [
                {"pattern": "ok*", "input": "1", "output": "2"},
                {"pattern": "", "input": "-1", "output": "abc", "cachedinput": 1},
                {
                    "pattern": "x",
                    "input": True,
                    "effectiveFrom": "2026-02-01",
                    "effectiveTo": "2026-01-01",
                },
                "not a rule",
            ],
        }
    )
    assert found == [
        ("rules[1].cachedinput", "unknown"),
        ("rules[1].input", "price"),
        ("rules[1].output", "price"),
        ("rules[1].pattern", "type"),
        ("rules[2].effectiveTo", "range"),
        ("rules[2].input", "price"),
        ("rules[2].output", "required"),
        ("rules[3]", "type"),
    ]


def test_a_file_without_version_or_rules_is_refused_with_both_reasons() -> None:
    assert problems({"rules": [], "extra": 1}) == [
        ("extra", "unknown"),
        ("rules", "required"),
        ("version", "required"),
    ]


def test_a_file_that_is_not_json_or_not_an_object_is_refused() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        price_table_from_text("{not json")
    assert caught.value.problems[0].path == "$"
    assert problems(["a list"]) == [("$", "type")]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("NaN", "is not a finite number"),
        ("Infinity", "is not a finite number"),
        ("-0.5", "is negative"),
        ("0.0000001", "has more than 6 decimal places"),
        ("100000000", "is more than 99999999 USD per 1M tokens"),
        ("1e3x", "is not a number"),
    ],
)
def test_a_price_that_is_no_amount_is_refused_with_the_reason(value, reason) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_price(value)


def test_trailing_zeros_do_not_count_as_decimal_places() -> None:
    assert parse_price("0.1500000") == Decimal("0.15")


def test_bad_dates_are_refused_by_field() -> None:
    rules = [{"pattern": "m", "input": 1, "output": 1, "effectiveFrom": "2026-13-01"}]
    assert problems({"version": "v", "rules": rules}) == [
        ("rules[0].effectiveFrom", "date")
    ]


def test_a_rule_written_back_reads_the_same() -> None:
    text = rule_to_document(
        rule(
            "gpt-4o*",
            provider="openai",
            input=Decimal("2.50"),
            cached_input=Decimal("1.25"),
            effective_from=date(2024, 8, 6),
        )
    )
    assert text == {
        "pattern": "gpt-4o*",
        "provider": "openai",
        "input": "2.5",
        "output": "2",
        "cachedInput": "1.25",
        "effectiveFrom": "2024-08-06",
    }
    again = price_table_from_document({"version": "v", "rules": [text]})
    assert again.rules[0].cached_input == Decimal("1.25")


def test_the_shipped_file_is_valid_and_prices_the_common_models() -> None:
    table = price_table_from_text(SHIPPED.read_bytes())
    document = json.loads(SHIPPED.read_text())
    assert table.version == document["version"]
    assert "check" in table.notes
    expected = {
        "gpt-4o-mini-2024-07-18": Decimal("0.15"),
        "gpt-4o-2024-08-06": Decimal("2.50"),
        "gpt-4o-2024-05-13": Decimal("5.00"),
        "claude-sonnet-4-5-20250929": Decimal("3.00"),
        "claude-opus-4-5-20251101": Decimal("5.00"),
        "gemini-2.5-flash": Decimal("0.30"),
        "mistral-large-latest": Decimal("2.00"),
        "openai/gpt-4.1-mini": Decimal("0.40"),
        "gpt-4-0613": Decimal("30.00"),
        "ollama:llama3.1:8b": Decimal(0),
    }
    found = {model: match(table.rules, model).input for model in expected}
    assert found == expected
    local = match(table.rules, "qwen2.5-coder:7b", provider="ollama")
    assert (local.input, local.output) == (Decimal(0), Decimal(0))
    assert match(table.rules, "my-fine-tune-v3") is None


def test_the_shipped_o3_price_changes_on_its_effective_date() -> None:
    table = price_table_from_text(SHIPPED.read_bytes())
    before = match(table.rules, "o3-2025-04-16", on=date(2025, 6, 9))
    after = match(table.rules, "o3-2025-04-16", on=date(2025, 6, 10))
    assert (before.input, after.input) == (Decimal("10.00"), Decimal("2.00"))


# --- Which rule -------------------------------------------------------------


def test_the_first_matching_rule_in_order_wins() -> None:
    rules = [rule("gpt-4o-mini*", input=Decimal(1)), rule("gpt-4o*", input=Decimal(9))]
    assert match(rules, "gpt-4o-mini-2024").input == Decimal(1)
    assert match(rules, "gpt-4o-2024").input == Decimal(9)
    assert match(list(reversed(rules)), "gpt-4o-mini-2024").input == Decimal(9)


def test_the_response_model_is_tried_before_the_request_model() -> None:
    rules = [rule("alias", input=Decimal(1)), rule("snapshot-1", input=Decimal(5))]
    assert match(rules, "alias", response="snapshot-1").input == Decimal(5)
    assert match(rules, "alias", response="no-such").input == Decimal(1)


def test_matching_ignores_case_and_tries_the_id_without_its_prefix() -> None:
    rules = [rule("gpt-4o*")]
    assert match(rules, "GPT-4o") is not None
    assert match(rules, "openai/gpt-4o") is not None
    assert match(rules, "openai:gpt-4o") is not None
    assert match(rules, "azure:deployments/gpt-4o") is not None
    assert match(rules, "xgpt-4o") is None


def test_the_full_id_is_tried_before_the_bare_one() -> None:
    rules = [rule("gpt-4o", input=Decimal(1)), rule("openai/*", input=Decimal(7))]
    assert match(rules, "openai/gpt-4o").input == Decimal(7)


def test_model_candidates_strip_org_then_provider_prefixes() -> None:
    assert model_candidates(" Meta-Llama/Llama-3-70B ") == (
        "meta-llama/llama-3-70b",
        "llama-3-70b",
    )
    assert model_candidates("ollama:llama3:8b") == ("ollama:llama3:8b", "llama3:8b")
    assert model_candidates("") == ()


def test_a_provider_rule_matches_the_spans_provider_or_the_ids_prefix() -> None:
    rules = [rule("*", provider="ollama", input=Decimal(0))]
    assert match(rules, "llama3", provider="Ollama") is not None
    assert match(rules, "ollama/llama3") is not None
    assert match(rules, "llama3", provider="groq") is None
    assert match(rules, "llama3") is None


def test_dates_bound_a_rule_inclusively_on_both_ends() -> None:
    rules = [
        rule("m", input=Decimal(1), effective_to=date(2026, 1, 31)),
        rule("m", input=Decimal(2), effective_from=date(2026, 2, 1)),
    ]
    assert match(rules, "m", on=date(2026, 1, 31)).input == Decimal(1)
    assert match(rules, "m", on=date(2026, 2, 1)).input == Decimal(2)
    late = [rule("m", effective_from=date(2027, 1, 1))]
    assert match(late, "m") is None


# --- The cost ---------------------------------------------------------------


def test_the_cost_is_tokens_per_million_times_each_price_exactly() -> None:
    prices = rule("m", input=Decimal("0.15"), output=Decimal("0.60"))
    assert span_cost(prices, Usage(input=1000, output=500)) == Decimal("0.0004500000")
    assert span_cost(prices, Usage(input=1, output=0)) == Decimal("1.5E-7")


def test_cached_input_is_priced_at_its_rate_and_not_billed_again_as_input() -> None:
    prices = rule(
        "m",
        input=Decimal("2.50"),
        output=Decimal(10),
        cached_input=Decimal("1.25"),
        cache_write=Decimal("3.125"),
    )
    # 1000 input of which 600 cached and 100 written: 300 plain.
    usage = Usage(input=1000, output=10, cached_input=600, cache_write=100)
    expected = (
        300 * Decimal("2.50")
        + 600 * Decimal("1.25")
        + 100 * Decimal("3.125")
        + 10 * Decimal(10)
    ) / 1_000_000
    assert span_cost(prices, usage) == expected


def test_cached_input_without_its_own_price_costs_the_input_price() -> None:
    prices = rule("m", input=Decimal(2), output=Decimal(0))
    assert span_cost(prices, Usage(input=100, output=0, cached_input=40)) == (
        span_cost(prices, Usage(input=100, output=0))
    )


def test_cache_counts_larger_than_input_are_taken_as_counted_apart() -> None:
    prices = rule("m", input=Decimal(3), output=Decimal(0), cached_input=Decimal(1))
    # Anthropic-style: input 10 excludes the 500 read from the cache.
    cost = span_cost(prices, Usage(input=10, output=0, cached_input=500))
    assert cost == (10 * Decimal(3) + 500 * Decimal(1)) / 1_000_000


def test_unknown_input_or_output_counts_give_an_unknown_cost_never_zero() -> None:
    prices = rule("m")
    assert span_cost(prices, Usage(input=None, output=5)) is None
    assert span_cost(prices, Usage(input=5, output=None)) is None
    assert span_cost(prices, Usage(input=0, output=0)) == Decimal(0)


def test_the_cost_is_rounded_half_to_even_at_ten_decimal_places() -> None:
    prices = rule("m", input=Decimal("0.000005"), output=Decimal(0))
    # 50 tokens * 0.000005 / 1e6 = 2.5e-10 -> 2e-10; 1.5e-10 -> 2e-10
    assert span_cost(prices, Usage(input=50, output=0)) == Decimal("2E-10")
    assert span_cost(prices, Usage(input=30, output=0)) == Decimal("2E-10")
