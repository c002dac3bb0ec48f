"""Reads of spans for the pages and the REST API."""

from __future__ import annotations

from django.db.models import QuerySet

from traces.models import Span


def trace_spans(trace_id: str) -> QuerySet[Span]:
    """Every span of ``trace_id``, earliest first (a waterfall's order)."""
    return Span.objects.filter(trace_id=trace_id).order_by("started_at", "pk")
