"""A run's and an agent's usage as their pages show it: figures in words
("not reported", "unknown (3 unpriced calls)", never 0 for unknown) and
links to the traces.

The run figures are ``traces.services.usage``'s (the compare and trends
pages read the same), plus the p99 and each case's trace; a run page of
10,000 spans costs three grouped queries. Reads only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from urllib.parse import quote

from django.urls import NoReverseMatch, reverse
from django.utils.http import urlencode

from traces.core.usage_text import (
    cost_text,
    latency_percentiles,
    latency_text,
    tokens_text,
)
from traces.selectors import SpendDay, agent_spend_days, run_trace_ids
from traces.services.usage import CaseUsage, runs_usage_summary


@dataclass(frozen=True, slots=True)
class CaseUsageRow:
    case_id: str
    case_url: str
    calls: int
    input_tokens: str
    output_tokens: str
    cost: str
    latency: str
    trace_url: str


@dataclass(frozen=True, slots=True)
class RunPageUsage:
    """A run's model calls: totals, latency percentiles over its cases'
    model time, one row per case with calls, the link to its spans."""

    calls: int
    unpriced: int
    input_tokens: str
    output_tokens: str
    cost: str
    latency_p50: str
    latency_p95: str
    latency_p99: str
    cases_timed: int
    cases: tuple[CaseUsageRow, ...]
    spans_url: str


@dataclass(frozen=True, slots=True)
class AgentSpend:
    """An agent's model calls over the ``days`` days (UTC) up to ``until``."""

    days: int
    until: date
    per_day: tuple[SpendDay, ...]
    calls: int
    unpriced: int
    cost: str
    input_tokens: str
    output_tokens: str
    spans_url: str


def spans_url(**filters: str) -> str:
    """The span list filtered by ``filters`` (model, agent, run, case, ...)."""
    query = urlencode(sorted((k, v) for k, v in filters.items() if v))
    base = reverse("traces:span-list")
    return f"{base}?{query}" if query else base


def trace_url(trace_id: str, *, span_id: str = "") -> str:
    """A trace's page ("" for no trace), at one of its spans when given."""
    if not trace_id:
        return ""
    url = reverse("traces:trace-detail", args=[trace_id])
    return f"{url}#span-{span_id}" if span_id else url


# Django's reverse() leaves these unquoted in a path segment.
SEGMENT_SAFE = "!$&'()*+,;=~:@"
TRACE_ID = re.compile(r"[0-9a-f]{32}")


def _urls_by_last_argument(name: str, *args: str) -> Callable[[str], str]:
    """The address of page ``name`` for each value of its last argument,
    reversed once: a run page lists up to thousands of cases, and one
    reverse() each cost more than the rest of its usage block."""
    marker = "0" * 32
    try:
        template = reverse(name, args=[*args, marker])
    except NoReverseMatch:
        return lambda value: ""
    head, _, tail = template.rpartition(marker)

    def url(value: str) -> str:
        # Ids no path segment can hold (empty, a slash) have no page.
        if not value or "/" in value:
            return ""
        return head + quote(value, safe=SEGMENT_SAFE) + tail

    return url


def _case_row(
    case_id: str,
    usage: CaseUsage,
    *,
    case_url: str,
    trace_id: str,
    trace_urls: Callable[[str], str],
) -> CaseUsageRow:
    return CaseUsageRow(
        case_id=case_id,
        case_url=case_url,
        calls=usage.calls,
        input_tokens=tokens_text(usage.input_tokens),
        output_tokens=tokens_text(usage.output_tokens),
        cost=cost_text(
            None if usage.cost_usd is None else Decimal(str(usage.cost_usd)),
            unpriced=usage.unpriced_calls,
        ),
        latency=latency_text(usage.latency_ms),
        trace_url=trace_urls(trace_id) if TRACE_ID.fullmatch(trace_id) else "",
    )


def run_page_usage(run_id: str) -> RunPageUsage | None:
    """The run page's "Model calls" figures; None when the run recorded no
    model call."""
    usage = runs_usage_summary([run_id], with_cases=True).get(run_id)
    if usage is None or not usage.has_calls:
        return None
    traces = run_trace_ids(run_id)
    case_urls = _urls_by_last_argument("evals:scenario-detail", run_id)
    trace_urls = _urls_by_last_argument("traces:trace-detail")
    latencies = [c.latency_ms for c in usage.cases.values() if c.latency_ms is not None]
    found = latency_percentiles(latencies)
    priced = Decimal(str(usage.priced_cost_usd))
    return RunPageUsage(
        calls=usage.calls,
        unpriced=usage.unpriced_calls,
        input_tokens=tokens_text(usage.input_tokens),
        output_tokens=tokens_text(usage.output_tokens),
        cost=cost_text(
            priced if usage.calls > usage.unpriced_calls else None,
            unpriced=usage.unpriced_calls,
        ),
        latency_p50=latency_text(found.p50 if found else None),
        latency_p95=latency_text(found.p95 if found else None),
        latency_p99=latency_text(found.p99 if found else None),
        cases_timed=found.count if found else 0,
        cases=tuple(
            _case_row(
                case_id,
                case,
                case_url=case_urls(case_id),
                trace_id=traces.get(case_id, ""),
                trace_urls=trace_urls,
            )
            for case_id, case in sorted(usage.cases.items())
        ),
        spans_url=spans_url(run=run_id),
    )


def _sum_known(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def agent_spend(
    *, agent_id: int, agent_name: str, days: int, now: datetime
) -> AgentSpend:
    """The agent's model calls per day over the last ``days`` days up to
    ``now``; tokens "not reported" when no call reported them."""
    since = (now - timedelta(days=days - 1)).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    per_day = tuple(agent_spend_days(agent_id=agent_id, since=since))
    unpriced = sum(d.unpriced for d in per_day)
    calls = sum(d.calls for d in per_day)
    priced = [d.cost_usd for d in per_day if d.cost_usd is not None]
    return AgentSpend(
        days=days,
        until=now.date(),
        per_day=per_day,
        calls=calls,
        unpriced=unpriced,
        cost=cost_text(sum(priced, Decimal(0)) if priced else None, unpriced=unpriced),
        input_tokens=tokens_text(_sum_known([d.input_tokens for d in per_day])),
        output_tokens=tokens_text(_sum_known([d.output_tokens for d in per_day])),
        spans_url=spans_url(agent=agent_name),
    )
