"""Tokens, cost and latency of runs, per case and per run, from their spans.

A model call is a span with a request or response model (tool calls and
agent steps are not counted). A case's figures are the sums over its model
calls (``case_ref``); a run's are the sums over all its model calls,
including those linked to the run but to no case. Unknown is never 0:

- a case's or run's cost is ``None`` when one of its calls is unpriced
  (no cost: the price table has no price for the model), and
  ``unpriced_calls`` says how many;
- its tokens are ``None`` when one of its calls did not report them;
- its latency (the time spent in model calls) is ``None`` when one call
  has none.

A run's latency percentiles are over its cases' latencies (the p95 of the
time the model took per case), linear interpolation between closest ranks
(numpy's default). One grouped SQL query whatever the number of runs (a
trends page asks for 1,000). Reads only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, Sum

from traces.models import Span

MODEL_CALL = ~Q(request_model="") | ~Q(response_model="")


@dataclass(frozen=True, slots=True)
class CaseUsage:
    """The model calls of one case of a run (``None``: unknown, see module)."""

    calls: int
    unpriced_calls: int
    cost_usd: float | None
    latency_ms: float | None
    input_tokens: int | None
    output_tokens: int | None


@dataclass(frozen=True, slots=True)
class RunUsage:
    """The model calls of one run (module docstring). ``cases`` is filled
    only when asked (``with_cases``); run-level calls belong to no case."""

    run_id: str
    calls: int
    unpriced_calls: int
    # Of the priced calls only; ``cost_usd`` is it when every call is priced.
    priced_cost_usd: float
    cost_usd: float | None
    input_tokens: int | None
    output_tokens: int | None
    cases_with_calls: int
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    cases: Mapping[str, CaseUsage] = field(default_factory=dict)

    @property
    def has_calls(self) -> bool:
        return self.calls > 0


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) of ``values`` by linear
    interpolation between closest ranks (``numpy.percentile``'s default);
    ``None`` for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _known(total: Any, missing: int) -> Any:
    return None if missing or total is None else total


def _grouped_rows(run_ids: Sequence[str]) -> list[dict[str, Any]]:
    return list(
        Span.objects.filter(run_ref__in=run_ids)
        .exclude(run_ref="")
        .filter(MODEL_CALL)
        .values("run_ref", "case_ref")
        .annotate(
            calls=Count("pk"),
            cost=Sum("cost_usd"),
            unpriced=Count("pk", filter=Q(cost_usd__isnull=True)),
            latency=Sum("latency_ms"),
            no_latency=Count("pk", filter=Q(latency_ms__isnull=True)),
            input=Sum("input_tokens"),
            no_input=Count("pk", filter=Q(input_tokens__isnull=True)),
            output=Sum("output_tokens"),
            no_output=Count("pk", filter=Q(output_tokens__isnull=True)),
        )
        .order_by()
    )


def _case_of(row: Mapping[str, Any]) -> CaseUsage:
    cost = row["cost"]
    return CaseUsage(
        calls=row["calls"],
        unpriced_calls=row["unpriced"],
        cost_usd=None if row["unpriced"] or cost is None else float(cost),
        latency_ms=_known(row["latency"], row["no_latency"]),
        input_tokens=_known(row["input"], row["no_input"]),
        output_tokens=_known(row["output"], row["no_output"]),
    )


def _run_of(
    run_id: str, rows: Sequence[Mapping[str, Any]], *, with_cases: bool
) -> RunUsage:
    calls = unpriced = 0
    priced = 0.0
    tokens_in: int | None = 0
    tokens_out: int | None = 0
    latencies: list[float] = []
    cases: dict[str, CaseUsage] = {}
    for row in rows:
        case = _case_of(row)
        calls += case.calls
        unpriced += case.unpriced_calls
        priced += float(row["cost"] or 0)
        tokens_in = (
            None
            if tokens_in is None or case.input_tokens is None
            else tokens_in + case.input_tokens
        )
        tokens_out = (
            None
            if tokens_out is None or case.output_tokens is None
            else tokens_out + case.output_tokens
        )
        if row["case_ref"]:
            if case.latency_ms is not None:
                latencies.append(case.latency_ms)
            if with_cases:
                cases[row["case_ref"]] = case
    return RunUsage(
        run_id=run_id,
        calls=calls,
        unpriced_calls=unpriced,
        priced_cost_usd=priced,
        cost_usd=priced if calls and not unpriced else None,
        input_tokens=tokens_in if calls else None,
        output_tokens=tokens_out if calls else None,
        cases_with_calls=sum(1 for row in rows if row["case_ref"]),
        latency_p50_ms=percentile(latencies, 50),
        latency_p95_ms=percentile(latencies, 95),
        cases=cases,
    )


def runs_usage_summary(
    run_ids: Iterable[str], *, with_cases: bool = False
) -> dict[str, RunUsage]:
    """Every run of ``run_ids`` (by run id) with its usage; a run without
    spans has ``calls == 0`` and unknown figures. One query."""
    wanted = sorted({run_id for run_id in run_ids if run_id})
    if not wanted:
        return {}
    by_run: dict[str, list[dict[str, Any]]] = {run_id: [] for run_id in wanted}
    for row in _grouped_rows(wanted):
        by_run[row["run_ref"]].append(row)
    return {
        run_id: _run_of(run_id, rows, with_cases=with_cases)
        for run_id, rows in by_run.items()
    }


def case_usage(run_ids: Iterable[str]) -> dict[str, dict[str, CaseUsage]]:
    """``{run_id: {case_id: CaseUsage}}`` for the cases with model calls.
    One query."""
    return {
        run_id: dict(usage.cases)
        for run_id, usage in runs_usage_summary(run_ids, with_cases=True).items()
    }
