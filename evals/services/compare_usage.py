"""What the runs of a comparison cost and how long their model calls took:
per benchmark, the base run's and the candidate's spans (through
``traces.facade``) turned into ``evals.core.usage_deltas``' figures and
compared there.

Computed on every request, never kept with the comparison
(``evals.services.compare_kept``): spans of a finished run may still
arrive (an agent's exporter sends them late), and a kept comparison would
not see them. One query for every run of the comparison. Reads only.

``runs_usage`` / ``run_usage_to_json``: each run's own figures (the
trends page). ``budget_checks``: the same figures for the CI gate's cost and latency
budgets (``benchmark_ci_gate --max-cost-increase/--max-p95-latency-ms``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evals.core.gate_budgets import BudgetCheck, Budgets, RunCost, judge_budgets
from evals.core.usage_deltas import (
    CaseFigures,
    RunFigures,
    UsageDelta,
    usage_delta,
    usage_delta_to_json,
)
from evals.services.compare import Comparison
from traces.facade import RunUsage, runs_usage_summary


@dataclass(frozen=True, slots=True)
class BenchmarkUsage:
    """One benchmark's two runs and their usage compared."""

    benchmark_id: str
    base_run_id: str
    candidate_run_id: str
    delta: UsageDelta


def figures_of(usage: RunUsage | None) -> RunFigures:
    """``usage`` (from ``traces.facade``) as the core reads it."""
    if usage is None:
        return RunFigures()
    return RunFigures(
        calls=usage.calls,
        unpriced_calls=usage.unpriced_calls,
        cost_usd=usage.cost_usd,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cases={
            case_id: CaseFigures(
                cost_usd=case.cost_usd,
                latency_ms=case.latency_ms,
                input_tokens=case.input_tokens,
                output_tokens=case.output_tokens,
            )
            for case_id, case in usage.cases.items()
        },
    )


def run_pairs_usage(
    pairs: Iterable[tuple[str, str, str]],
) -> tuple[BenchmarkUsage, ...]:
    """For each ``(benchmark_id, base_run_id, candidate_run_id)``, the two
    runs' usage compared. One query."""
    wanted = list(pairs)
    usage = runs_usage_summary(
        [run_id for _, base, candidate in wanted for run_id in (base, candidate)],
        with_cases=True,
    )
    return tuple(
        BenchmarkUsage(
            benchmark_id,
            base,
            candidate,
            usage_delta(figures_of(usage.get(base)), figures_of(usage.get(candidate))),
        )
        for benchmark_id, base, candidate in wanted
    )


def comparison_usage(comparison: Comparison) -> tuple[BenchmarkUsage, ...]:
    """The usage of each benchmark of ``comparison`` with both runs."""
    return run_pairs_usage(
        (s.benchmark_id, s.base_run_id, s.candidate_run_id)
        for s in comparison.sections
        if s.base_run_id and s.candidate_run_id
    )


def usage_to_json(usage: Iterable[BenchmarkUsage]) -> list[dict[str, object]]:
    """The ``costAndLatency`` list of the compare page's JSON."""
    return [
        {
            "benchmarkId": item.benchmark_id,
            "baseRunId": item.base_run_id,
            "candidateRunId": item.candidate_run_id,
            **usage_delta_to_json(item.delta),
        }
        for item in usage
    ]


def budget_checks(
    budgets: Budgets, pairs: Iterable[tuple[str, str, str]]
) -> tuple[BudgetCheck, ...]:
    """The CI gate's cost and latency budgets for each ``(benchmark_id,
    base_run_id, candidate_run_id)`` it compared (``evals.core.gate_budgets``).
    One query."""
    wanted = list(pairs)
    usage = runs_usage_summary(
        [run_id for _, base, candidate in wanted for run_id in (base, candidate)]
    )
    figures = {
        run_id: RunCost(
            calls=item.calls,
            unpriced_calls=item.unpriced_calls,
            cost_usd=item.cost_usd,
            latency_p95_ms=item.latency_p95_ms,
        )
        for run_id, item in usage.items()
    }
    return judge_budgets(budgets, wanted, figures)


def runs_usage(run_ids: Iterable[str]) -> dict[str, RunUsage]:
    """Each run's model calls, cost and latency (``traces.facade``); one
    query however many runs (a trends page of 1,000)."""
    return runs_usage_summary(run_ids)


def run_usage_to_json(usage: RunUsage) -> dict[str, object]:
    """One run's figures in the trends page's JSON (camelCase)."""
    return {
        "calls": usage.calls,
        "unpricedCalls": usage.unpriced_calls,
        "costUsd": usage.cost_usd,
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "latencyP50Ms": usage.latency_p50_ms,
        "latencyP95Ms": usage.latency_p95_ms,
    }
