"""REST API of spans and traces: list and fetch spans, fetch a trace.

- ``GET /api/spans``: spans newest first, filtered by agent, run, case,
  thought, model, source, status, time range and trace, paged by a keyset
  cursor (``traces.api.filters``);
- ``GET /api/spans/<id>``: one span with its attributes and events;
- ``GET /api/traces/<trace_id>``: a trace's spans in waterfall order (each
  under its parent, siblings by start: ``traces.core.waterfall``, as the
  trace page draws them) with its totals.

Who reads what: an API key (it needs the ``traces`` scope, ``core.scopes``)
reads its own agent's spans only, never the harness's; a session reads what
the trace pages show it (``traces.selectors.spans_visible``): staff every
span, anyone else the spans of the agents it owns or is a member of (the
stream's rule) and the spans no agent sent (the harness's, of eval runs,
which are open to every signed-in user). A span the caller may not read
answers 404, as one that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, Max, Min, Q, QuerySet, Sum
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import request_key
from core.errors import NotFound
from traces.api.filters import (
    MAX_ID,
    SPAN_FILTERS,
    TRACE_ID,
    TRACE_ID_PATTERN,
    cursor_encode,
    span_query,
    spans_matching,
)
from traces.api.outputs import (
    SPAN_PAGE,
    TRACE_OUTPUT,
    SpanOutputSerializer,
    TraceTotalsSerializer,
    span_context,
)
from traces.core.records import COST_UNKNOWN, STATUS_ERROR
from traces.core.waterfall import WaterfallSpan, waterfall
from traces.models import Span
from traces.selectors import spans_visible as spans_visible_to

# A trace's answer lists at most this many spans (the earliest); its totals
# count every span.
MAX_TRACE_SPANS = 2000


def spans_visible(request: Request) -> QuerySet[Span]:
    """The spans the caller may read (see the module docstring): a key its
    own agent's; a session what the pages show it (``traces.selectors``)."""
    key = request_key(request)
    if key is None:
        spans = spans_visible_to(user=request.user)
    elif request.auth is None or request.auth is key:
        spans = Span.objects.none()  # a key no agent holds sends no spans
    else:
        spans = Span.objects.filter(agent_id=request.auth.pk)
    return spans.select_related("agent")


class SpanListView(APIView):
    @extend_schema(
        operation_id="spans_list",
        parameters=SPAN_FILTERS,
        responses=SPAN_PAGE,
        description=(
            "Spans the caller may read, newest first (started, then id). "
            "Every filter is optional; since is inclusive, until exclusive. "
            "Tokens are null where the model did not report them; cost is a "
            "decimal string, null when unknown (costSource says why)."
        ),
    )
    def get(self, request: Request) -> Response:
        query = span_query(request)
        # A list item has no attributes or events: they stay in the table.
        spans = spans_visible(request).defer("attributes", "events")
        page = list(spans_matching(spans, query)[: query.limit + 1])
        more = len(page) > query.limit
        page = page[: query.limit]
        last = page[-1] if more else None
        return Response(
            {
                "results": SpanOutputSerializer(
                    page, many=True, context=span_context(request)
                ).data,
                "nextCursor": None
                if last is None
                else cursor_encode(last.started_at, last.pk),
            }
        )


class SpanDetailView(APIView):
    @extend_schema(
        operation_id="spans_retrieve",
        responses=SpanOutputSerializer,
        description="One span with its attributes and events.",
    )
    def get(self, request: Request, pk: int) -> Response:
        span = None
        if 0 < pk <= MAX_ID:
            span = spans_visible(request).filter(pk=pk).first()
        if span is None:
            raise NotFound(f"no span {pk}", details={"id": pk})
        return Response(
            SpanOutputSerializer(span, context=span_context(request, detail=True)).data
        )


@dataclass(frozen=True, slots=True)
class TokenTotals:
    """Summed tokens; None where no span of the trace reported that kind."""

    input_tokens: int | None
    output_tokens: int | None
    cached_input_tokens: int | None
    cache_write_tokens: int | None
    reasoning_tokens: int | None


@dataclass(frozen=True, slots=True)
class TraceTotals:
    spans: int
    model_calls: int
    errors: int
    tokens: TokenTotals
    cost: Decimal | None
    unpriced_calls: int
    started_at: datetime
    ended_at: datetime

    @property
    def duration_ms(self) -> float:
        return max((self.ended_at - self.started_at).total_seconds() * 1000, 0.0)


def trace_totals(spans: QuerySet[Span]) -> TraceTotals:
    """The totals of ``spans``, in one query."""
    model_call = ~Q(request_model="") | ~Q(response_model="")
    row = spans.order_by().aggregate(
        spans=Count("pk"),
        model_calls=Count("pk", filter=model_call),
        errors=Count("pk", filter=Q(status=STATUS_ERROR)),
        unpriced=Count("pk", filter=Q(cost_source=COST_UNKNOWN)),
        cost=Sum("cost_usd"),
        first=Min("started_at"),
        last=Max("ended_at"),
        **{
            name: Sum(name)
            for name in (
                "input_tokens",
                "output_tokens",
                "cached_input_tokens",
                "cache_write_tokens",
                "reasoning_tokens",
            )
        },
    )
    return TraceTotals(
        spans=row["spans"],
        model_calls=row["model_calls"],
        errors=row["errors"],
        tokens=TokenTotals(
            input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"],
            cached_input_tokens=row["cached_input_tokens"],
            cache_write_tokens=row["cache_write_tokens"],
            reasoning_tokens=row["reasoning_tokens"],
        ),
        cost=row["cost"],
        unpriced_calls=row["unpriced"],
        started_at=row["first"],
        ended_at=row["last"],
    )


class TraceDetailView(APIView):
    @extend_schema(
        operation_id="traces_retrieve",
        parameters=[
            OpenApiParameter(
                "trace_id",
                {"type": "string", "pattern": TRACE_ID_PATTERN},
                location=OpenApiParameter.PATH,
                description="32 hex digits",
            )
        ],
        responses=TRACE_OUTPUT,
        description=(
            "A trace's spans the caller may read, each under its parent "
            f"(depth) with its start after the trace's (offsetMs); at most "
            f"{MAX_TRACE_SPANS} spans (truncated says so), totals over all."
        ),
    )
    def get(self, request: Request, trace_id: str) -> Response:
        if TRACE_ID.match(trace_id) is None:
            raise ValidationError({"trace_id": ["the trace id must be 32 hex digits."]})
        trace_id = trace_id.lower()
        spans = spans_visible(request).filter(trace_id=trace_id)
        shown = list(spans.order_by("started_at", "pk")[: MAX_TRACE_SPANS + 1])
        if not shown:
            raise NotFound(f"no trace {trace_id}", details={"traceId": trace_id})
        truncated = len(shown) > MAX_TRACE_SPANS
        shown = shown[:MAX_TRACE_SPANS]
        totals = trace_totals(spans)
        laid_out = waterfall(
            [
                WaterfallSpan(
                    span_id=span.span_id,
                    parent_span_id=span.parent_span_id,
                    started_at=span.started_at,
                    ended_at=span.ended_at,
                )
                for span in shown
            ]
        )
        placed = []
        for row in laid_out.rows:
            span = shown[row.index]
            span.depth = row.depth  # type: ignore[attr-defined]
            span.offset_ms = row.offset_ms  # type: ignore[attr-defined]
            placed.append(span)
        return Response(
            {
                "traceId": trace_id,
                "startedAt": totals.started_at.isoformat(),
                "endedAt": totals.ended_at.isoformat(),
                "truncated": truncated,
                "totals": TraceTotalsSerializer(totals).data,
                "spans": SpanOutputSerializer(
                    placed,
                    many=True,
                    context=span_context(request, trace=True),
                ).data,
            }
        )
