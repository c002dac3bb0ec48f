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
from prkeepalive.models import Decision, PullRequest, Repository, Round

ACTIVE = (Round.Status.LOCKED, Round.Status.RUNNING)


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
    owner, _, name = pull.repository.full_name.partition("/")
    return reverse("prkeepalive:pull-detail", args=[owner, name, pull.number])


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


def repositories() -> QuerySet[Repository]:
    return Repository.objects.order_by("full_name")


def decisions_for(pull: PullRequest, *, limit: int = 200) -> list[Decision]:
    return list(pull.decisions.order_by("-created_at", "-pk")[:limit])


def rounds_for(pull: PullRequest, *, limit: int = 200) -> list[Round]:
    return list(pull.rounds.order_by("-created_at", "-pk")[:limit])


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


def keepalive_overview(*, now: datetime) -> Overview:
    """The overview tile: the last day's decisions and the running rounds."""
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
    )
