"""What the indexer reads from each app, as ``Doc`` rows: thoughts, scenario
outputs, keepalive decision lines, model completions (by id after a
watermark) and review
comments (by the time they changed after a watermark). Each reader goes
through its app's public selectors; review comments are read here, as
search sits above reviews."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.urls import reverse

from evals.selectors.search_docs import case_outputs_after
from prkeepalive.selectors_search import decisions_after
from reviews.models import ReviewAssignment, Score
from search.core.documents import Doc, title_of
from stream.selectors_search import thoughts_after
from traces.facade import completions_after


@dataclass(frozen=True, slots=True)
class Batch:
    """Documents read, and where the source's watermark moves to."""

    docs: list[Doc]
    last_id: int
    last_time: datetime | None = None
    rows: int = 0


def thought_docs(after_id: int, limit: int) -> Batch:
    rows = thoughts_after(after_id, limit)
    docs = [
        Doc(
            kind="thought",
            ref=str(t.pk),
            source_id=t.pk,
            subject="thought",
            subject_ref=str(t.pk),
            text=t.content,
            created_at=t.created_at,
            agent_id=t.agent_id,
            run_id=t.eval_run_id,
            eligible=t.convert_eligible,
            flags=(t.type,) + (("ungrounded",) if t.grounding_passed is False else ()),
            title=title_of(t.content),
        )
        for t in rows
    ]
    return Batch(docs, rows[-1].pk if rows else after_id, rows=len(rows))


def scenario_docs(after_id: int, limit: int) -> Batch:
    rows = case_outputs_after(after_id, limit)
    docs = [
        Doc(
            kind="scenario_output",
            ref=f"{c.run_id}/{c.case_id}",
            subject="scenario_result",
            subject_ref=f"{c.run_id}/{c.case_id}",
            text=c.output,
            created_at=c.started_at,
            run_id=c.run_id,
            suite_id=c.suite_id,
            eligible=c.eligible,
            flags=c.flags,
            title=f"{c.case_id} in {c.run_id}",
            link=reverse("evals:scenario-detail", args=[c.run_id, c.case_id]),
        )
        for c in rows
        if c.output
    ]
    return Batch(docs, rows[-1].pk if rows else after_id, rows=len(rows))


def keepalive_docs(after_id: int, limit: int) -> Batch:
    rows = decisions_after(after_id, limit)
    docs = [
        Doc(
            kind="keepalive_line",
            ref=str(d.pk),
            subject="keepalive_decision",
            subject_ref=str(d.pk),
            text=f"{d.line}\n{d.detail}".strip(),
            created_at=d.created_at,
            eligible=d.ok,
            flags=(d.reason,),
            title=d.title,
            link=d.url,
        )
        for d in rows
    ]
    return Batch(docs, rows[-1].pk if rows else after_id, rows=len(rows))


def completion_docs(after_id: int, limit: int) -> Batch:
    rows = completions_after(after_id, limit)
    docs = [
        Doc(
            kind="completion",
            ref=f"{c.trace_id}/{c.span_id}",
            source_id=c.pk,
            text=c.completion,
            created_at=c.started_at,
            agent_id=c.agent_id,
            run_id=c.run_id,
            flags=(c.status,),
            title=f"{c.model} completion" if c.model else "model completion",
            link=c.url,
        )
        for c in rows
        if c.completion
    ]
    return Batch(docs, rows[-1].pk if rows else after_id, rows=len(rows))


def _comment_batch(
    rows: list[tuple[int, datetime, Doc | None]],
    after_id: int,
    after_time: datetime | None,
) -> Batch:
    if not rows:
        return Batch([], after_id, after_time)
    pk, when, _ = rows[-1]
    return Batch([d for _, _, d in rows if d is not None], pk, when, rows=len(rows))


def _changed_after(
    model: type[Score] | type[ReviewAssignment],
    time_field: str,
    after_id: int,
    after_time: datetime | None,
) -> QuerySet:  # type: ignore[type-arg]
    qs = model.objects.filter(**{f"{time_field}__isnull": False})
    if after_time is not None:
        # Keyset on (time, id): rows changed later, or at the same instant
        # with a larger id.
        qs = qs.filter(
            Q(**{f"{time_field}__gt": after_time})
            | Q(**{time_field: after_time, "pk__gt": after_id})
        )
    return qs.order_by(time_field, "pk")


def score_comment_docs(after_id: int, limit: int, after_time: datetime | None) -> Batch:
    scores = _changed_after(Score, "updated_at", after_id, after_time).select_related(
        "config", "item"
    )[:limit]
    rows = []
    for s in scores:
        doc = None
        if s.comment:
            doc = Doc(
                kind="review_comment",
                ref=f"score/{s.pk}",
                subject=s.kind,
                subject_ref=s.ref,
                text=s.comment,
                created_at=s.updated_at,
                agent_id=s.agent_id,
                run_id=s.run_id,
                queue_id=s.item.queue_id if s.item is not None else None,
                flags=(s.source,),
                title=f"{s.config.name} on {s.kind} {s.ref}",
            )
        rows.append((s.pk, s.updated_at, doc))
    return _comment_batch(rows, after_id, after_time)


def assignment_comment_docs(
    after_id: int, limit: int, after_time: datetime | None
) -> Batch:
    found = _changed_after(
        ReviewAssignment, "finished_at", after_id, after_time
    ).select_related("item")[:limit]
    rows = []
    for a in found:
        doc = None
        if a.comment:
            doc = Doc(
                kind="review_comment",
                ref=f"assignment/{a.pk}",
                subject=a.item.kind,
                subject_ref=a.item.ref,
                text=a.comment,
                created_at=a.finished_at,
                agent_id=a.item.agent_id,
                run_id=a.item.run_id,
                queue_id=a.item.queue_id,
                flags=(a.status,),
                title=a.item.title or f"{a.item.kind} {a.item.ref}",
            )
        rows.append((a.pk, a.finished_at, doc))
    return _comment_batch(rows, after_id, after_time)


# Sources read by id, and sources read by change time.
BY_ID: dict[str, Callable[[int, int], Batch]] = {
    "thought": thought_docs,
    "scenario_output": scenario_docs,
    "keepalive_line": keepalive_docs,
    "completion": completion_docs,
}
BY_TIME: dict[str, Callable[[int, int, datetime | None], Batch]] = {
    "review_score": score_comment_docs,
    "review_assignment": assignment_comment_docs,
}
