"""Reads of search: the documents a caller may see, a query's hits with
their filters and keyset paging, and saved searches.

Who sees what: an agent's API key, its own agent's documents (never review
comments); staff, everything; anyone else signed in, the documents of the
agents they own or are a member of (the stream's rule), the documents no
agent made (eval runs' outputs and keepalive decisions, which every signed-in
user's pages show), and the review comments of the queues they are a
member of.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import BooleanField, Exists, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.urls import reverse

from reviews.models import ReviewQueue, Score
from search.core.filters import Filters
from search.core.query import Query
from search.core.snippets import snippet
from search.models import SavedSearch, SearchDocument
from search.services.backends import match_condition
from stream.selectors import agent_list_visible
from stream.selectors_search import agent_id_named, agent_names

# Past this many agents a user may see, the visibility filter stays a subquery.
MAX_IDS = 5000
KIND_LABELS = {
    "thought": "thought",
    "scenario_output": "scenario output",
    "completion": "model completion",
    "review_comment": "review comment",
    "keepalive_line": "keepalive decision",
}


def documents_visible(
    *, user: AbstractBaseUser | None, agent_id: int | None = None
) -> QuerySet[SearchDocument]:
    """The documents a session ``user`` may read, or (``user`` None) those
    of the agent ``agent_id`` an API key belongs to (none when None)."""
    docs = SearchDocument.objects.all()
    if user is None:
        if agent_id is None:
            return docs.none()
        return docs.filter(agent_id=agent_id).exclude(kind="review_comment")
    if not getattr(user, "is_authenticated", False):
        return docs.none()
    if getattr(user, "is_staff", False):
        return docs
    # The ids as a list, not a subquery: the planner then estimates how many
    # documents they hold and combines their index with the full-text one.
    agents: Any = list(
        agent_list_visible(user=user).values_list("pk", flat=True)[:MAX_IDS]
    )
    if len(agents) >= MAX_IDS:
        agents = agent_list_visible(user=user).values("pk")
    queues = list(ReviewQueue.objects.filter(members=user).values_list("pk", flat=True))
    return docs.filter(
        (Q(queue_id__isnull=True) & (Q(agent_id__in=agents) | Q(agent_id__isnull=True)))
        | Q(queue_id__in=queues)
    )


def filtered(
    docs: QuerySet[SearchDocument], filters: Filters
) -> QuerySet[SearchDocument]:
    """``docs`` narrowed by every filter that is set."""
    if filters.agent is not None:
        agent_id = agent_id_named(filters.agent)
        if agent_id is None and filters.agent.isdigit() and len(filters.agent) < 19:
            agent_id = int(filters.agent)
        docs = docs.filter(agent_id=agent_id) if agent_id else docs.none()
    if filters.run is not None:
        docs = docs.filter(run_id=filters.run)
    if filters.suite is not None:
        docs = docs.filter(suite_id=filters.suite)
    if filters.kind is not None:
        docs = docs.filter(kind=filters.kind)
    if filters.since is not None:
        docs = docs.filter(created_at__gte=filters.since)
    if filters.until is not None:
        docs = docs.filter(created_at__lt=filters.until)
    if filters.eligible is not None:
        docs = docs.filter(eligible=filters.eligible)
    if filters.flag is not None:
        docs = docs.filter(flags__contains=f" {filters.flag} ")
    if (
        filters.score is not None
        or filters.score_min is not None
        or filters.score_max is not None
    ):
        # A score under that config within the range (parse_filters
        # refuses a bound without a config name).
        scores = Score.objects.filter(
            kind=OuterRef("subject"), ref=OuterRef("subject_ref")
        )
        if filters.score is not None:
            scores = scores.filter(config__name=filters.score)
        if filters.score_min is not None:
            scores = scores.filter(value_number__gte=filters.score_min)
        if filters.score_max is not None:
            scores = scores.filter(value_number__lte=filters.score_max)
        docs = docs.filter(Exists(scores))
    return docs


def matching(docs: QuerySet[SearchDocument], query: Query) -> QuerySet[SearchDocument]:
    """``docs`` the query finds, newest first (time, then id)."""
    sql, params = match_condition(query)
    # The SQL is fixed text from search.services.backends; the query's words
    # travel as parameters.
    condition = RawSQL(sql, params, output_field=BooleanField())  # noqa: S611
    return docs.filter(condition).order_by("-created_at", "-pk")


@dataclass(frozen=True, slots=True)
class Hit:
    pk: int
    kind: str
    kind_label: str
    ref: str
    title: str
    snippet: str
    url: str
    agent: str | None
    run_id: str
    created_at: datetime


def _url(doc: SearchDocument, names: dict[int, str]) -> str:
    if doc.kind == "thought" and doc.agent_id in names and doc.ref.isdigit():
        return reverse("stream:thought-detail", args=[names[doc.agent_id], doc.ref])
    return doc.link


def search_page(
    docs: QuerySet[SearchDocument], query: Query, filters: Filters
) -> tuple[list[Hit], tuple[datetime, int] | None]:
    """One page of hits (``filters.limit``, after ``filters.after``) and the
    (time, id) the next page continues after (None on the last page)."""
    found = matching(filtered(docs, filters), query)
    if filters.after is not None:
        when, pk = filters.after
        found = found.filter(Q(created_at__lt=when) | Q(created_at=when, pk__lt=pk))
    rows = list(found.defer("terms")[: filters.limit + 1])
    more = len(rows) > filters.limit
    rows = rows[: filters.limit]
    names = agent_names(d.agent_id for d in rows if d.agent_id is not None)
    hits = [
        Hit(
            pk=d.pk,
            kind=d.kind,
            kind_label=KIND_LABELS.get(d.kind, d.kind),
            ref=d.ref,
            title=d.title,
            snippet=snippet(d.text, query),
            url=_url(d, names),
            agent=names.get(d.agent_id) if d.agent_id is not None else None,
            run_id=d.run_id,
            created_at=d.created_at,
        )
        for d in rows
    ]
    after = (rows[-1].created_at, rows[-1].pk) if more and rows else None
    return hits, after


def subjects_matching(
    docs: QuerySet[SearchDocument], query: Query, filters: Filters, *, limit: int
) -> list[tuple[str, str]]:
    """The review subjects (kind, ref) of the newest documents the query
    finds, each once, at most ``limit``; documents with no subject (review
    comments, model completions) are left out."""
    found = matching(filtered(docs, filters), query).exclude(subject="")
    found = found.exclude(kind="review_comment")
    subjects: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for kind, ref in found.values_list("subject", "subject_ref").iterator():
        if (kind, ref) not in seen:
            seen.add((kind, ref))
            subjects.append((kind, ref))
            if len(subjects) >= limit:
                break
    return subjects


def saved_searches(*, user: AbstractBaseUser) -> QuerySet[SavedSearch]:
    """The user's saved searches, by name."""
    return SavedSearch.objects.filter(owner=user)
