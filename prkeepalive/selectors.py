"""Reads for the pages and the REST lists of PR keepalive."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Count, Prefetch, Q, QuerySet
from django.db.models.functions import TruncDate
from django.shortcuts import get_object_or_404
from django.urls import reverse

from prkeepalive.core.labels import has_keepalive_label, run_cap
from prkeepalive.models import Decision, Delivery, PullRequest, Repository, Round

ACTIVE = (Round.Status.LOCKED, Round.Status.RUNNING)
TROUBLED = (Delivery.Status.RETRYING, Delivery.Status.FAILED)


@dataclass(frozen=True, slots=True)
class PullState:
    pull: PullRequest
    has_label: bool
    cap: int
    active: int
    last_round: Round | None
    last_decision: Decision | None

    @property
    def url(self) -> str:
        return pull_url(self.pull)


def pull_url(pull: PullRequest) -> str:
    return pull_url_of(pull.repository.full_name, pull.number)


def pull_url_of(full_name: str, number: int) -> str:
    owner, _, name = full_name.partition("/")
    return reverse("prkeepalive:pull-detail", args=[owner, name, number])


@dataclass(frozen=True, slots=True)
class TroubledDelivery:
    delivery: Delivery
    url: str  # its PR's page, '' when it names no PR


def pull_get(*, owner: str, name: str, number: int) -> PullRequest:
    return get_object_or_404(
        PullRequest.objects.select_related("repository"),
        repository__full_name__iexact=f"{owner}/{name}",
        number=number,
    )


def pull_states(repository: Repository) -> list[PullState]:
    pulls = (
        repository.pulls.select_related("repository")
        .annotate(active=Count("rounds", filter=Q(rounds__status__in=ACTIVE)))
        .prefetch_related(
            Prefetch("rounds", queryset=Round.objects.order_by("-created_at", "-pk")),
            Prefetch(
                "decisions", queryset=Decision.objects.order_by("-created_at", "-pk")
            ),
        )
        .order_by("-number")
    )
    out = []
    for p in pulls:
        rounds = list(p.rounds.all()[:1])
        decisions = list(p.decisions.all()[:1])
        out.append(
            PullState(
                pull=p,
                has_label=has_keepalive_label(p.labels),
                cap=run_cap(p.labels),
                active=p.active,  # type: ignore[attr-defined]
                last_round=rounds[0] if rounds else None,
                last_decision=decisions[0] if decisions else None,
            )
        )
    return out


def troubled_deliveries(pull: PullRequest, *, limit: int = 20) -> list[Delivery]:
    """Deliveries of this PR whose processing failed: being retried, or
    given up (newest first)."""
    return list(
        Delivery.objects.filter(
            repository=pull.repository, pull_number=pull.number, status__in=TROUBLED
        ).order_by("-received_at", "-pk")[:limit]
    )


def troubled_by_repository(*, limit: int = 20) -> dict[int, list[TroubledDelivery]]:
    """Failed and retrying deliveries per repository id, newest first."""
    out: dict[int, list[TroubledDelivery]] = {}
    rows = (
        Delivery.objects.filter(status__in=TROUBLED, repository__isnull=False)
        .select_related("repository")
        .order_by("-received_at", "-pk")
    )
    for d in rows[: limit * 10]:
        assert d.repository is not None
        bucket = out.setdefault(d.repository.pk, [])
        if len(bucket) < limit:
            url = (
                pull_url_of(d.repository.full_name, d.pull_number)
                if d.pull_number
                else ""
            )
            bucket.append(TroubledDelivery(d, url))
    return out


def repositories() -> QuerySet[Repository]:
    return Repository.objects.order_by("full_name")


def decisions_for(
    pull: PullRequest, *, limit: int = 200, offset: int = 0
) -> list[Decision]:
    """The PR's decisions, newest first, from ``offset``."""
    return list(pull.decisions.order_by("-created_at", "-pk")[offset : offset + limit])


def rounds_for(pull: PullRequest, *, limit: int = 200, offset: int = 0) -> list[Round]:
    """The PR's rounds, newest first, from ``offset``."""
    return list(pull.rounds.order_by("-created_at", "-pk")[offset : offset + limit])


def reason_histogram(
    *, repository: Repository | None = None
) -> list[tuple[date, str, int]]:
    """Decisions per day and reason, oldest day first."""
    qs = Decision.objects.all()
    if repository is not None:
        qs = qs.filter(repository=repository)
    rows = (
        qs.annotate(day=TruncDate("created_at"))
        .values("day", "reason")
        .annotate(n=Count("pk"))
        .order_by("day", "reason")
    )
    return [(r["day"], r["reason"], r["n"]) for r in rows]


def reason_totals() -> Counter[str]:
    return Counter(dict(Decision.objects.values_list("reason").annotate(n=Count("pk"))))


@dataclass(frozen=True, slots=True)
class Overview:
    repositories: int
    decisions_24h: int
    dispatched_24h: int
    active_rounds: int
    last_refusal: Decision | None
    deliveries_failed: int = 0
    deliveries_retrying: int = 0


def keepalive_overview(*, now: datetime) -> Overview:
    """The overview tile: the last day's decisions, the running rounds, and
    the deliveries being retried or that failed in the last day."""
    since = now - timedelta(hours=24)
    recent = Decision.objects.filter(created_at__gte=since)
    return Overview(
        repositories=Repository.objects.filter(is_active=True).count(),
        decisions_24h=recent.count(),
        dispatched_24h=recent.filter(ok=True).count(),
        active_rounds=Round.objects.filter(status__in=ACTIVE).count(),
        last_refusal=Decision.objects.filter(ok=False)
        .select_related("pull")
        .order_by("-created_at", "-pk")
        .first(),
        deliveries_failed=Delivery.objects.filter(
            status=Delivery.Status.FAILED, received_at__gte=since
        ).count(),
        deliveries_retrying=Delivery.objects.filter(
            status=Delivery.Status.RETRYING
        ).count(),
    )


def decision_with_pull(pk: int) -> Decision | None:
    """One decision with its repository and pull request loaded (a review
    item's subject), or None."""
    return Decision.objects.select_related("repository", "pull").filter(pk=pk).first()
