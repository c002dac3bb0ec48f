"""A comparison's cost and latency: the runs' spans compared per benchmark,
in one query, never kept with the comparison."""

from __future__ import annotations

import pytest

from evals.services.compare import comparison_for_runs
from evals.services.compare_usage import (
    comparison_usage,
    run_pairs_usage,
    usage_to_json,
)
from tests.evals.usage_support import spans_for, stored_run

pytestmark = pytest.mark.django_db

CASES = [f"s{i:02d}" for i in range(12)]


def test_both_runs_spans_are_compared_per_case() -> None:
    stored_run("pack", "base", CASES)
    stored_run("pack", "cand", CASES, minutes=5)
    spans_for("base", {c: ("0.01", 100.0 + i) for i, c in enumerate(CASES)})
    spans_for("cand", {c: ("0.02", 200.0 + i) for i, c in enumerate(CASES)})
    (item,) = comparison_usage(
        comparison_for_runs(base_run_id="base", candidate_run_id="cand")
    )
    assert (item.benchmark_id, item.base_run_id, item.candidate_run_id) == (
        "pack",
        "base",
        "cand",
    )
    delta = item.delta
    assert delta.cost.base == pytest.approx(0.12)
    assert delta.cost.relative == pytest.approx(1.0)
    assert delta.cost_per_case.comparison is not None
    assert delta.cost_per_case.comparison.n == 12
    assert delta.latency_per_case.comparison is not None
    assert delta.latency_per_case.comparison.delta == pytest.approx(100.0)
    assert delta.latency_p95.low == pytest.approx(100.0)


def test_spans_that_arrive_after_a_kept_comparison_are_seen() -> None:
    stored_run("pack", "base", CASES)
    stored_run("pack", "cand", CASES, minutes=5)
    comparison = comparison_for_runs(base_run_id="base", candidate_run_id="cand")
    assert not comparison_usage(comparison)[0].delta.has_calls
    spans_for("cand", {"s00": ("0.01", 10.0)})
    again = comparison_for_runs(base_run_id="base", candidate_run_id="cand")
    assert comparison_usage(again)[0].delta.candidate_calls == 1


def test_many_pairs_cost_one_query(django_assert_num_queries) -> None:
    pairs = [(f"b{i}", f"base-{i}", f"cand-{i}") for i in range(5)]
    for _, base, cand in pairs:
        spans_for(base, {"s00": ("0.01", 10.0)})
        spans_for(cand, {"s00": (None, 10.0)})
    with django_assert_num_queries(1):
        usage = run_pairs_usage(pairs)
    document = usage_to_json(usage)
    assert [d["benchmarkId"] for d in document] == ["b0", "b1", "b2", "b3", "b4"]
    assert document[0]["costUsd"]["note"] == "cost unknown: candidate: 1 call unpriced"
    assert document[0]["unpricedCalls"] == {"base": 0, "candidate": 1}
