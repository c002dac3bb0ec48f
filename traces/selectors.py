"""Reads of spans for the pages and the REST API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Count, Min, Q, QuerySet, Sum
from django.db.models.functions import TruncDate

from stream.selectors import agent_list_visible
from traces.core.run_totals import RunUsageTotals
from traces.models import Span
from traces.services.usage import MODEL_CALL


def trace_spans(trace_id: str) -> QuerySet[Span]:
    """Every span of ``trace_id``, earliest first (a waterfall's order)."""
    return Span.objects.filter(trace_id=trace_id).order_by("started_at", "pk")


# --- the pages: the span list, a trace, a run's and an agent's usage --------

LIST_LIMIT = 50
# The list shows a row's figures and links; the big JSON columns stay behind.
LIST_DEFERRED = ("attributes", "events", "request_params")


@dataclass(frozen=True, slots=True)
class SpanFilters:
    """The span list's filters; empty ones filter nothing."""

    model: str = ""
    agent: str = ""
    run: str = ""
    case: str = ""
    source: str = ""
    status: str = ""
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True, slots=True)
class SpanPage:
    """Up to ``LIST_LIMIT`` spans, newest first; ``next_cursor`` ("" on the
    last page) names where the next, older page starts."""

    spans: list[Span]
    next_cursor: str


def spans_visible(*, user: AbstractBaseUser) -> QuerySet[Span]:
    """Spans the user may see: those of no agent (the harness's), and those
    of the agents the user owns or is a member of (staff see all)."""
    spans = Span.objects.all()
    if getattr(user, "is_staff", False):
        return spans
    agents = agent_list_visible(user=user).order_by().values("pk")
    return spans.filter(Q(agent__isnull=True) | Q(agent_id__in=agents))


def agent_names_visible(*, user: AbstractBaseUser) -> list[str]:
    """The names of the agents whose spans the user may see, sorted."""
    return sorted(agent_list_visible(user=user).values_list("name", flat=True))


def cursor_text(span: Span) -> str:
    return f"{span.started_at.isoformat()}_{span.pk}"


def cursor_parse(text: str) -> tuple[datetime, int] | None:
    """The (started_at, pk) a cursor names; None for anything else."""
    when, _, pk = text.rpartition("_")
    try:
        parsed = datetime.fromisoformat(when)
        number = int(pk)
    except ValueError:
        return None
    if parsed.tzinfo is None or number < 0:
        return None
    return parsed, number


def of_agent_named(spans: QuerySet[Span], name: str) -> QuerySet[Span]:
    """``spans`` of the agent called ``name`` (none when there is no such
    agent), filtered by its key, looked up first: a join on the name hides
    the value from the planner, which then walks every agent's spans by time."""
    agent_id = (
        Span._meta.get_field("agent")
        .related_model.objects.filter(name=name)
        .values_list("pk", flat=True)
        .first()
    )
    return spans.filter(agent_id=agent_id) if agent_id else spans.none()


def span_list(
    *, user: AbstractBaseUser, filters: SpanFilters, cursor: str = ""
) -> SpanPage:
    """The spans the user may see that pass ``filters``, newest first, from
    ``cursor`` on (a keyset page: fast however many spans the table holds)."""
    spans = spans_visible(user=user).select_related("agent").defer(*LIST_DEFERRED)
    if filters.model:
        spans = spans.filter(
            Q(request_model=filters.model) | Q(response_model=filters.model)
        )
    if filters.agent:
        spans = of_agent_named(spans, filters.agent)
    if filters.run:
        spans = spans.filter(run_ref=filters.run)
    if filters.case:
        spans = spans.filter(case_ref=filters.case)
    if filters.source:
        spans = spans.filter(source=filters.source)
    if filters.status:
        spans = spans.filter(status=filters.status)
    if filters.since is not None:
        spans = spans.filter(started_at__gte=filters.since)
    if filters.until is not None:
        spans = spans.filter(started_at__lt=filters.until)
    after = cursor_parse(cursor) if cursor else None
    if after is not None:
        when, pk = after
        spans = spans.filter(Q(started_at__lt=when) | Q(started_at=when, pk__lt=pk))
    rows = list(spans.order_by("-started_at", "-pk")[: LIST_LIMIT + 1])
    more = len(rows) > LIST_LIMIT
    rows = rows[:LIST_LIMIT]
    return SpanPage(spans=rows, next_cursor=cursor_text(rows[-1]) if more else "")


def trace_visible_spans(
    *, user: AbstractBaseUser, trace_id: str, limit: int | None = None
) -> list[Span]:
    """The spans of a trace the user may see, earliest first (the first
    ``limit`` when given)."""
    spans = (
        spans_visible(user=user)
        .filter(trace_id=trace_id)
        .select_related("agent")
        .order_by("started_at", "pk")
    )
    return list(spans if limit is None else spans[:limit])


def trace_id_of_thought(thought_pk: int) -> str:
    """The trace of the newest span linked to the thought ("" for none)."""
    found = (
        Span.objects.filter(thought_ref=thought_pk)
        .order_by("-started_at", "-pk")
        .values_list("trace_id", flat=True)
        .first()
    )
    return found or ""


def trace_id_of_case(run_id: str, case_id: str) -> str:
    """The trace of the newest span linked to the case ("" for none)."""
    found = (
        Span.objects.filter(run_ref=run_id, case_ref=case_id)
        .order_by("-started_at", "-pk")
        .values_list("trace_id", flat=True)
        .first()
    )
    return found or ""


def run_trace_ids(run_id: str) -> dict[str, str]:
    """``{case_id: trace_id}`` of a run's cases with spans (one query;
    a case whose spans are in several traces names the least id)."""
    rows = (
        Span.objects.filter(run_ref=run_id)
        .exclude(case_ref="")
        .values("case_ref")
        .annotate(trace=Min("trace_id"))
        .order_by()
    )
    return {row["case_ref"]: row["trace"] for row in rows}


@dataclass(frozen=True, slots=True)
class SpendDay:
    day: date
    calls: int
    unpriced: int
    cost_usd: Decimal | None
    input_tokens: int | None
    output_tokens: int | None


def agent_spend_days(*, agent_id: int, since: datetime) -> list[SpendDay]:
    """An agent's model calls since ``since``, per day (UTC), oldest first;
    one grouped query over the (agent, started_at) index."""
    rows = (
        Span.objects.filter(agent_id=agent_id, started_at__gte=since)
        .filter(MODEL_CALL)
        .annotate(day=TruncDate("started_at"))
        .values("day")
        .annotate(
            calls=Count("pk"),
            unpriced=Count("pk", filter=Q(cost_usd__isnull=True)),
            cost=Sum("cost_usd"),
            tokens_in=Sum("input_tokens"),
            tokens_out=Sum("output_tokens"),
        )
        .order_by("day")
    )
    return [
        SpendDay(
            day=row["day"],
            calls=row["calls"],
            unpriced=row["unpriced"],
            cost_usd=row["cost"],
            input_tokens=row["tokens_in"],
            output_tokens=row["tokens_out"],
        )
        for row in rows
    ]


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
