"""The CI gate's cost and latency budgets (``benchmark_ci_gate
--max-cost-increase X --max-p95-latency-ms N``), off unless asked.

Per benchmark the gate compared, the candidate run against its baseline
run (the run the gate judged it against):

- **cost**: the candidate's total model-call cost may exceed the
  baseline's by at most the fraction X (``0.10`` or ``10%``): it fails when
  ``(candidate - base) / base > X``. A baseline that cost $0 allows no
  cost at all;
- **p95 latency**: the p95 over the candidate's cases of the time its
  model calls took per case may be at most N ms (the baseline's is shown
  beside it, not judged).

A budget that cannot be judged **fails, with the reason**: a run with an
unpriced call (``cost unknown: candidate: 3 calls unpriced``) or without
model calls recorded (``... base: no model calls recorded``), a candidate
without case latencies. Asking for a budget says the figures matter;
passing a gate whose budget could not be checked would hide that.

The budgets' lines join the gate's regressions (after its own), and the
reports list every budget with its figures and verdict. Without either
option nothing changes: the reports are the plain gate's, byte for byte.
Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from evals.core.gate import GateVerdict

COST = "cost"
P95_LATENCY = "p95Latency"


@dataclass(frozen=True, slots=True)
class Budgets:
    """What the gate was asked to hold (``None``: not asked)."""

    max_cost_increase: float | None = None
    max_p95_latency_ms: float | None = None

    @property
    def asked(self) -> bool:
        return self.max_cost_increase is not None or self.max_p95_latency_ms is not None


@dataclass(frozen=True, slots=True)
class RunCost:
    """What a run's model calls cost and took, as the budgets read them."""

    calls: int = 0
    unpriced_calls: int = 0
    cost_usd: float | None = None
    latency_p95_ms: float | None = None


@dataclass(frozen=True, slots=True)
class BudgetCheck:
    """One budget of one benchmark, judged."""

    benchmark_id: str
    budget: str  # COST or P95_LATENCY
    limit: float
    base: float | None
    candidate: float | None
    passed: bool
    reason: str

    @property
    def line(self) -> str:
        """The regression line of a failed check."""
        what = "cost" if self.budget == COST else "p95 latency"
        return f"{self.benchmark_id} {what} budget: {self.reason}"


def parse_cost_increase(text: str) -> float:
    """``"0.10"`` or ``"10%"`` -> 0.1; ``ValueError`` naming what is wrong."""
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        value = float(raw[:-1] if percent else raw)
    except ValueError:
        raise ValueError(
            f"not a fraction or a percent: {text!r} (e.g. 0.10 or 10%)"
        ) from None
    if percent:
        value /= 100
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"must be 0 or more: {text!r}")
    return value


def parse_latency_ms(text: str) -> float:
    """A positive number of milliseconds; ``ValueError`` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"not a number of milliseconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"must be more than 0: {text!r}")
    return value


def _dollars(value: float) -> str:
    return f"${value:.6f}".rstrip("0").rstrip(".") if value else "$0"


def _ms(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") + " ms"


def _percent(value: float) -> str:
    return f"{100 * value:.4g}%"


def _unknown_cost(base: RunCost, candidate: RunCost) -> str:
    parts = [
        f"{side}: {run.unpriced_calls} call{'s' if run.unpriced_calls != 1 else ''} "
        "unpriced"
        for side, run in (("base", base), ("candidate", candidate))
        if run.calls and run.unpriced_calls
    ] + [
        f"{side}: no model calls recorded"
        for side, run in (("base", base), ("candidate", candidate))
        if not run.calls
    ]
    return "cost unknown: " + "; ".join(parts) if parts else ""


def judge_cost(
    benchmark_id: str, limit: float, base: RunCost, candidate: RunCost
) -> BudgetCheck:
    unknown = _unknown_cost(base, candidate)
    if unknown or base.cost_usd is None or candidate.cost_usd is None:
        return BudgetCheck(
            benchmark_id,
            COST,
            limit,
            base.cost_usd,
            candidate.cost_usd,
            False,
            unknown or "cost unknown",
        )
    before, after = base.cost_usd, candidate.cost_usd
    shown = f"{_dollars(before)} -> {_dollars(after)}"
    if before == 0:
        passed = after == 0
        reason = f"{shown} (the baseline cost nothing; at most +{_percent(limit)})"
    else:
        increase = (after - before) / before
        passed = increase <= limit + 1e-12
        sign = "+" if increase >= 0 else ""
        reason = f"{shown} ({sign}{_percent(increase)}; at most +{_percent(limit)})"
    return BudgetCheck(benchmark_id, COST, limit, before, after, passed, reason)


def judge_latency(
    benchmark_id: str, limit: float, base: RunCost, candidate: RunCost
) -> BudgetCheck:
    p95 = candidate.latency_p95_ms
    if p95 is None:
        why = "no model calls recorded" if not candidate.calls else "no case latency"
        return BudgetCheck(
            benchmark_id,
            P95_LATENCY,
            limit,
            base.latency_p95_ms,
            None,
            False,
            f"p95 latency unknown: candidate: {why}",
        )
    base_text = (
        f"baseline {_ms(base.latency_p95_ms)}, "
        if base.latency_p95_ms is not None
        else ""
    )
    return BudgetCheck(
        benchmark_id,
        P95_LATENCY,
        limit,
        base.latency_p95_ms,
        p95,
        p95 <= limit,
        f"{_ms(p95)} ({base_text}at most {_ms(limit)})",
    )


def judge_budgets(
    budgets: Budgets,
    pairs: Iterable[tuple[str, str, str]],
    figures: Mapping[str, RunCost],
) -> tuple[BudgetCheck, ...]:
    """Each asked budget for each ``(benchmark_id, base_run_id,
    candidate_run_id)``; a run missing from ``figures`` has no calls."""
    checks: list[BudgetCheck] = []
    for benchmark_id, base_id, candidate_id in pairs:
        base = figures.get(base_id, RunCost())
        candidate = figures.get(candidate_id, RunCost())
        if budgets.max_cost_increase is not None:
            checks.append(
                judge_cost(benchmark_id, budgets.max_cost_increase, base, candidate)
            )
        if budgets.max_p95_latency_ms is not None:
            checks.append(
                judge_latency(benchmark_id, budgets.max_p95_latency_ms, base, candidate)
            )
    return tuple(checks)


def gate_pairs(verdict: GateVerdict) -> list[tuple[str, str, str]]:
    """The ``(benchmark_id, base_run_id, candidate_run_id)`` the gate compared."""
    return [(d.benchmark_id, d.base_run_id, d.candidate_run_id) for d in verdict.deltas]


def with_budgets(
    verdict: GateVerdict, budgets: Budgets, checks: tuple[BudgetCheck, ...]
) -> GateVerdict:
    """``verdict`` with the budgets' failures among its regressions."""
    failed = tuple(check.line for check in checks if not check.passed)
    return replace(
        verdict,
        passed=verdict.passed and not failed,
        regressions=verdict.regressions + failed,
        budgets=BudgetReport(budgets, checks),
    )


@dataclass(frozen=True, slots=True)
class BudgetReport:
    """The budgets asked and their checks, as the reports show them."""

    budgets: Budgets
    checks: tuple[BudgetCheck, ...]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


def budgets_to_json(report: BudgetReport) -> dict[str, Any]:
    return {
        "maxCostIncrease": report.budgets.max_cost_increase,
        "maxP95LatencyMs": report.budgets.max_p95_latency_ms,
        "passed": report.passed,
        "checks": [
            {
                "benchmarkId": c.benchmark_id,
                "budget": c.budget,
                "limit": c.limit,
                "base": c.base,
                "candidate": c.candidate,
                "passed": c.passed,
                "reason": c.reason,
            }
            for c in report.checks
        ],
    }


def budgets_to_markdown(report: BudgetReport) -> list[str]:
    """The ``## Budgets`` section's lines."""
    asked = []
    if report.budgets.max_cost_increase is not None:
        asked.append(
            f"cost increase at most +{_percent(report.budgets.max_cost_increase)}"
        )
    if report.budgets.max_p95_latency_ms is not None:
        asked.append(f"p95 latency at most {_ms(report.budgets.max_p95_latency_ms)}")
    lines = ["", "## Budgets", f"- Asked: {'; '.join(asked)}"]
    lines += [
        f"- {'ok' if c.passed else 'FAIL'} {c.benchmark_id} "
        f"{'cost' if c.budget == COST else 'p95 latency'}: {c.reason}"
        for c in report.checks
    ] or ["- no benchmark compared"]
    return lines
