"""Reads the search index takes from traces: each model call's completion
text with its agent, run and trace page, in id order after a watermark.
Read-only; other apps reach it through ``traces.facade``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.urls import reverse

from traces.core.span_content import span_texts
from traces.models import Span


@dataclass(frozen=True, slots=True)
class CompletionText:
    pk: int
    trace_id: str
    span_id: str
    agent_id: int | None
    run_id: str
    model: str
    status: str
    completion: str
    url: str
    started_at: datetime


def completions_after(after_id: int, limit: int) -> list[CompletionText]:
    """Up to ``limit`` spans with an id above ``after_id``, in id order;
    ``completion`` is "" for a span that carries none (not a model call)."""
    rows = (
        Span.objects.filter(pk__gt=after_id)
        .order_by("pk")
        .only(
            "pk", "trace_id", "span_id", "agent_id", "run_ref", "request_model",
            "response_model", "status", "attributes", "started_at",
        )[:limit]
    )  # fmt: skip
    return [
        CompletionText(
            pk=span.pk,
            trace_id=span.trace_id,
            span_id=span.span_id,
            agent_id=span.agent_id,
            run_id=span.run_ref,
            model=span.response_model or span.request_model,
            status=span.status,
            completion=span_texts(span.attributes or {}).completion,
            url=reverse("traces:trace-detail", args=[span.trace_id]),
            started_at=span.started_at,
        )
        for span in rows
    ]


def oldest_span_id() -> int | None:
    """The smallest span id still stored (retention deletes the oldest)."""
    return Span.objects.order_by("pk").values_list("pk", flat=True).first()
