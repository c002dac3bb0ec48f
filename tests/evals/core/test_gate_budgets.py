"""The gate's cost and latency budgets: parsing, judging, failing closed on
an unknown figure, and the report sections."""

from __future__ import annotations

import pytest

from evals.core.formats_types import RunStatus, RunSummary
from evals.core.gate import evaluate_gate
from evals.core.gate_budgets import (
    COST,
    P95_LATENCY,
    Budgets,
    RunCost,
    gate_pairs,
    judge_budgets,
    parse_cost_increase,
    parse_latency_ms,
    with_budgets,
)
from evals.core.gate_report import verdict_to_json, verdict_to_markdown
from evals.core.store import StoreContents, StoredItem, StoreKind


@pytest.mark.parametrize(
    ("text", "value"), [("0.10", 0.10), ("10%", 0.10), (" 25 % ", 0.25), ("0", 0.0)]
)
def test_a_cost_increase_is_a_fraction_or_a_percent(text: str, value: float) -> None:
    assert parse_cost_increase(text) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ten", "not a fraction or a percent: 'ten' (e.g. 0.10 or 10%)"),
        ("-5%", "must be 0 or more: '-5%'"),
        ("nan", "must be 0 or more: 'nan'"),
    ],
)
def test_a_bad_cost_increase_is_refused_with_the_reason(
    text: str, message: str
) -> None:
    with pytest.raises(ValueError, match=".") as error:
        parse_cost_increase(text)
    assert str(error.value) == message


def test_a_latency_budget_is_a_positive_number() -> None:
    assert parse_latency_ms("1500") == 1500.0
    with pytest.raises(ValueError, match="must be more than 0: '0'"):
        parse_latency_ms("0")
    with pytest.raises(ValueError, match="not a number of milliseconds: 'fast'"):
        parse_latency_ms("fast")


PAIRS = [("pack", "b", "c")]


def judged(budgets: Budgets, base: RunCost, candidate: RunCost):
    return judge_budgets(budgets, PAIRS, {"b": base, "c": candidate})


def test_a_cost_rise_within_the_budget_passes_and_beyond_fails() -> None:
    base = RunCost(calls=10, cost_usd=1.0, latency_p95_ms=100.0)
    (within,) = judged(Budgets(max_cost_increase=0.10), base, RunCost(10, 0, 1.10, 1))
    (beyond,) = judged(Budgets(max_cost_increase=0.10), base, RunCost(10, 0, 1.2, 1))
    assert within.passed
    assert within.reason == "$1 -> $1.1 (+10%; at most +10%)"
    assert not beyond.passed
    assert beyond.line == "pack cost budget: $1 -> $1.2 (+20%; at most +10%)"


def test_an_unpriced_call_fails_the_cost_budget_with_the_count() -> None:
    base = RunCost(calls=10, cost_usd=1.0)
    (check,) = judged(
        Budgets(max_cost_increase=0.5), base, RunCost(calls=10, unpriced_calls=3)
    )
    assert not check.passed
    assert check.reason == "cost unknown: candidate: 3 calls unpriced"


def test_runs_without_spans_fail_both_budgets_closed() -> None:
    checks = judged(
        Budgets(max_cost_increase=0.1, max_p95_latency_ms=500), RunCost(), RunCost()
    )
    assert [(c.budget, c.passed, c.reason) for c in checks] == [
        (
            COST,
            False,
            "cost unknown: base: no model calls recorded; candidate: no model "
            "calls recorded",
        ),
        (P95_LATENCY, False, "p95 latency unknown: candidate: no model calls recorded"),
    ]


def test_the_p95_budget_judges_the_candidate_and_shows_the_baseline() -> None:
    base = RunCost(calls=5, cost_usd=0.1, latency_p95_ms=800.0)
    (ok,) = judged(Budgets(max_p95_latency_ms=1000), base, RunCost(5, 0, 0.1, 1000.0))
    (slow,) = judged(Budgets(max_p95_latency_ms=1000), base, RunCost(5, 0, 0.1, 1200.4))
    assert ok.passed
    assert not slow.passed
    assert slow.reason == "1200.4 ms (baseline 800 ms, at most 1000 ms)"


def test_a_free_baseline_allows_no_cost() -> None:
    base = RunCost(calls=5, cost_usd=0.0)
    (free,) = judged(Budgets(max_cost_increase=0.1), base, RunCost(5, 0, 0.0))
    (paid,) = judged(Budgets(max_cost_increase=0.1), base, RunCost(5, 0, 0.01))
    assert free.passed
    assert not paid.passed


def _store(root: str, run_id: str, passed: int) -> StoreContents:
    run = RunSummary(
        run_id=run_id,
        benchmark_id="pack",
        status=RunStatus.COMPLETED,
        started_at="2026-03-06T10:00:00.000Z",
        completed_at="2026-03-06T10:02:00.000Z",
        total_cases=2,
        passed_cases=passed,
        failed_cases=2 - passed,
    )
    return StoreContents(
        root=root,
        kinds=frozenset(StoreKind),
        runs=(StoredItem(f"runs/{run_id}.json", run),),
    )


def test_a_failed_budget_fails_the_gate_and_both_reports_list_it() -> None:
    verdict = evaluate_gate(
        base=_store("base", "b", 2), candidate=_store("cand", "c", 2)
    )
    assert verdict.passed
    assert gate_pairs(verdict) == [("pack", "b", "c")]
    budgets = Budgets(max_cost_increase=0.1, max_p95_latency_ms=1000)
    checks = judge_budgets(
        budgets,
        gate_pairs(verdict),
        {"b": RunCost(2, 0, 1.0, 900.0), "c": RunCost(2, 0, 1.5, 900.0)},
    )
    gated = with_budgets(verdict, budgets, checks)
    assert not gated.passed
    assert gated.regressions == ("pack cost budget: $1 -> $1.5 (+50%; at most +10%)",)
    markdown = verdict_to_markdown(gated)
    assert markdown.endswith(
        "\n## Budgets\n"
        "- Asked: cost increase at most +10%; p95 latency at most 1000 ms\n"
        "- FAIL pack cost: $1 -> $1.5 (+50%; at most +10%)\n"
        "- ok pack p95 latency: 900 ms (baseline 900 ms, at most 1000 ms)\n"
    )
    assert "- Passed: no\n" in markdown
    document = verdict_to_json(gated)
    assert document["passed"] is False
    assert document["budgets"]["maxCostIncrease"] == 0.1
    assert document["budgets"]["checks"][1] == {
        "benchmarkId": "pack",
        "budget": "p95Latency",
        "limit": 1000,
        "base": 900.0,
        "candidate": 900.0,
        "passed": True,
        "reason": "900 ms (baseline 900 ms, at most 1000 ms)",
    }


def test_without_budgets_the_reports_have_no_budget_section() -> None:
    verdict = evaluate_gate(
        base=_store("base", "b", 2), candidate=_store("cand", "c", 1)
    )
    assert "Budgets" not in verdict_to_markdown(verdict)
    assert "budgets" not in verdict_to_json(verdict)
