"""Reads of spans for the pages and the REST API."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet, Sum

from traces.core.run_totals import RunUsageTotals
from traces.models import Span


def trace_spans(trace_id: str) -> QuerySet[Span]:
    """Every span of ``trace_id``, earliest first (a waterfall's order)."""
    return Span.objects.filter(trace_id=trace_id).order_by("started_at", "pk")


def run_usage_totals(run_id: str) -> RunUsageTotals:
    """Sums over the model calls of run ``run_id`` (``eval_run``'s last
    lines): one aggregate query and one for the price table versions."""
    calls = Span.objects.filter(run_ref=run_id).filter(
        ~Q(request_model="") | ~Q(response_model="")
    )
    sums = calls.aggregate(
        calls=Count("pk"),
        failed=Count("pk", filter=Q(status="error")),
        with_usage=Count(
            "pk",
            filter=Q(input_tokens__isnull=False) | Q(output_tokens__isnull=False),
        ),
        input=Sum("input_tokens"),
        output=Sum("output_tokens"),
        cached=Sum("cached_input_tokens"),
        reasoning=Sum("reasoning_tokens"),
        priced=Count("pk", filter=Q(cost_usd__isnull=False)),
        cost=Sum("cost_usd"),
    )
    versions = (
        calls.exclude(price_version="")
        .order_by("price_version")
        .values_list("price_version", flat=True)
        .distinct()
    )
    return RunUsageTotals(
        calls=sums["calls"],
        failed_calls=sums["failed"],
        calls_with_usage=sums["with_usage"],
        input_tokens=sums["input"],
        output_tokens=sums["output"],
        cached_input_tokens=sums["cached"],
        reasoning_tokens=sums["reasoning"],
        priced_calls=sums["priced"],
        cost_usd=sums["cost"],
        price_versions=tuple(versions),
    )
