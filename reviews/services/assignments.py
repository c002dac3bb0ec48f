"""A reviewer's sitting: the next item, scoring it, skipping it, asking for
a second look; and the progress of a queue and of each reviewer.

Round robin queues hand items out when they are filled
(``assign_round_robin``); claim queues hand the next free item to whoever
asks (``next_assignment``). An item is free while fewer reviewers are
working on it or have finished it than it wants (one, or two for the
overlap share). A skip or a "needs a second look" gives the item back:
round robin passes it to another reviewer, claim lets anyone else take it.
Claiming is safe under concurrent reviewers: on PostgreSQL each claim locks
the item row (``SKIP LOCKED``, so two reviewers never wait on each other)
and counts again before taking it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import (
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Sum,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.errors import NotFound, SchemaInvalid, SchemaProblem
from reviews.core.assign import round_robin
from reviews.models import (
    QueueMember,
    ReviewAssignment,
    ReviewItem,
    ReviewQueue,
    Score,
)
from reviews.services.scores import (
    Giver,
    comment_check,
    refresh_after_commit,
    score_give,
    subject_find,
    value_read,
)

Status = ReviewAssignment.Status
# Assignments that hold one of an item's reviewer places.
HOLDING = (Status.PENDING, Status.DONE)
CLAIM_TRIES = 5


def _member_ids(queue: ReviewQueue) -> list[int]:
    return list(
        QueueMember.objects.filter(queue=queue)
        .order_by("pk")
        .values_list("user_id", flat=True)
    )


def _loads(queue: ReviewQueue) -> dict[int, int]:
    rows = (
        ReviewAssignment.objects.filter(item__queue=queue, status__in=HOLDING)
        .values("reviewer_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row["reviewer_id"]: row["n"] for row in rows}


def assign_round_robin(queue: ReviewQueue, items: Iterable[ReviewItem]) -> int:
    """Give each item to as many of the queue's reviewers as it wants, the
    least loaded first; the number of assignments made."""
    fresh = list(items)
    members = _member_ids(queue)
    if not fresh or not members:
        return 0
    chosen = round_robin(
        members, [item.reviewers_wanted for item in fresh], _loads(queue)
    )
    made = [
        ReviewAssignment(item=item, reviewer_id=reviewer)
        for item, reviewers in zip(fresh, chosen, strict=True)
        for reviewer in reviewers
    ]
    ReviewAssignment.objects.bulk_create(made)
    return len(made)


def release_pending(queue: ReviewQueue, reviewer_ids: Iterable[int]) -> int:
    """Drop the unfinished assignments of these reviewers in the queue (they
    left it); the number dropped."""
    ids = list(reviewer_ids)
    if not ids:
        return 0
    deleted, _ = ReviewAssignment.objects.filter(
        item__queue=queue, reviewer_id__in=ids, status=Status.PENDING
    ).delete()
    return deleted


def _free_items(queue: ReviewQueue, reviewer: Any) -> Any:
    holding = (
        ReviewAssignment.objects.filter(item=OuterRef("pk"), status__in=HOLDING)
        .order_by()
        .values("item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    mine = ReviewAssignment.objects.filter(item=OuterRef("pk"), reviewer=reviewer)
    return (
        ReviewItem.objects.filter(queue=queue)
        .annotate(holding=Coalesce(Subquery(holding, output_field=IntegerField()), 0))
        .filter(holding__lt=F("reviewers_wanted"))
        .exclude(Exists(mine))
        .order_by("pk")
    )


def _claim(queue: ReviewQueue, reviewer: Any) -> ReviewAssignment | None:
    for _ in range(CLAIM_TRIES):
        try:
            with transaction.atomic():
                item = (
                    _free_items(queue, reviewer)
                    .select_for_update(skip_locked=True, of=("self",))
                    .first()
                )
                if item is None:
                    return None
                # Counted again now the row is locked: a claim committed
                # between the search and the lock is seen by this statement.
                taken = ReviewAssignment.objects.filter(
                    item=item, status__in=HOLDING
                ).count()
                if taken >= item.reviewers_wanted:
                    continue
                return ReviewAssignment.objects.create(item=item, reviewer=reviewer)
        except IntegrityError:
            continue  # the same reviewer claimed it from another tab
    return None


def next_assignment(queue: ReviewQueue, reviewer: Any) -> ReviewAssignment | None:
    """The item ``reviewer`` should review next in ``queue``: the oldest one
    handed to them and not finished, else (claim, or a round robin item no
    one holds) the first free item, now theirs; None when there is none or
    ``reviewer`` is not one of the queue's reviewers."""
    if not QueueMember.objects.filter(queue=queue, user=reviewer).exists():
        return None
    pending = (
        ReviewAssignment.objects.filter(
            item__queue=queue, reviewer=reviewer, status=Status.PENDING
        )
        .select_related("item")
        .order_by("item_id")
        .first()
    )
    if pending is not None:
        return pending
    return _claim(queue, reviewer)


def assignment_get(queue: ReviewQueue, reviewer: Any, pk: int) -> ReviewAssignment:
    """The reviewer's own assignment ``pk`` in the queue; ``NotFound``
    otherwise."""
    found = (
        ReviewAssignment.objects.filter(pk=pk, item__queue=queue, reviewer=reviewer)
        .select_related("item")
        .first()
    )
    if found is None:
        raise NotFound(f"no review assignment {pk}", details={"id": pk})
    return found


def assignment_score(
    assignment: ReviewAssignment,
    values: Mapping[str, Any],
    *,
    comment: Any = "",
    from_text: bool = False,
) -> list[Score]:
    """Score the item on every config of its queue (``values`` by config
    name; text from a form when ``from_text``) and finish the assignment.
    ``SchemaInvalid`` naming each config whose value is missing or wrong
    (and ``comment``); then nothing is stored."""
    item = assignment.item
    configs = list(item.queue.score_configs.order_by("name"))
    problems: list[SchemaProblem] = []
    checked = []
    for config in configs:
        raw = values.get(config.name)
        if raw is None or (from_text and not str(raw).strip()):
            problems.append(
                SchemaProblem(config.name, "required", "a value is needed.")
            )
            continue
        try:
            checked.append(
                (
                    config,
                    value_read(config, raw, from_text=from_text, field=config.name),
                )
            )
        except SchemaInvalid as exc:
            problems.extend(exc.problems)
    try:
        text = comment_check(comment)
    except SchemaInvalid as exc:
        problems.extend(exc.problems)
    if problems:
        raise SchemaInvalid("the scores are not valid", problems=problems)
    subject = subject_find(item.kind, item.ref)
    giver = Giver(user=assignment.reviewer)
    with transaction.atomic():
        scores = [
            score_give(
                config=config,
                subject=subject,
                kind=item.kind,
                ref=item.ref,
                value=value,
                comment=text,
                giver=giver,
                source=Score.Source.REVIEW,
                item=item,
                refresh=False,
            )[0]
            for config, value in checked
        ]
        _finish(assignment, Status.DONE, text)
        refresh_after_commit(subject.run_id)
    return scores


def _finish(assignment: ReviewAssignment, status: str, comment: str) -> None:
    assignment.status = status
    assignment.comment = comment
    assignment.finished_at = timezone.now()
    assignment.save(update_fields=["status", "comment", "finished_at"])


def _give_back(assignment: ReviewAssignment, status: str, comment: Any) -> None:
    text = comment_check(comment)
    with transaction.atomic():
        _finish(assignment, status, text)
        item = assignment.item
        queue = item.queue
        if queue.assignment != ReviewQueue.Assignment.ROUND_ROBIN:
            return  # a claim queue: the item is free for anyone else
        had = set(
            ReviewAssignment.objects.filter(item=item).values_list(
                "reviewer_id", flat=True
            )
        )
        others = [uid for uid in _member_ids(queue) if uid not in had]
        holding = ReviewAssignment.objects.filter(item=item, status__in=HOLDING)
        if not others or holding.count() >= item.reviewers_wanted:
            return
        (chosen,) = round_robin(others, [1], _loads(queue))
        for reviewer in chosen:
            ReviewAssignment.objects.create(item=item, reviewer_id=reviewer)


def assignment_skip(assignment: ReviewAssignment, *, comment: Any = "") -> None:
    """The reviewer skips the item; it goes to someone else."""
    _give_back(assignment, Status.SKIPPED, comment)


def assignment_second_look(assignment: ReviewAssignment, *, comment: Any = "") -> None:
    """The reviewer marks the item as needing a second look (the comment
    says why); another reviewer gets it."""
    _give_back(assignment, Status.SECOND_LOOK, comment)


@dataclass(frozen=True, slots=True)
class QueueProgress:
    """A queue's figures: items, items fully reviewed, reviews wanted (one
    per item, two for the overlap share) and done, skips, second looks,
    and items handed out but not finished."""

    items: int
    items_done: int
    reviews_wanted: int
    reviews_done: int
    skipped: int
    second_look: int
    pending: int

    @property
    def percent_done(self) -> int:
        if not self.reviews_wanted:
            return 0
        return round(
            100 * min(self.reviews_done, self.reviews_wanted) / self.reviews_wanted
        )


@dataclass(frozen=True, slots=True)
class ReviewerProgress:
    """One reviewer's figures in a queue."""

    user_id: int
    username: str
    assigned: int
    done: int
    skipped: int
    second_look: int
    pending: int


def queue_progress(queue: ReviewQueue) -> QueueProgress:
    """The queue's figures (two queries)."""
    done_per_item = (
        ReviewAssignment.objects.filter(item=OuterRef("pk"), status=Status.DONE)
        .order_by()
        .values("item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    items = ReviewItem.objects.filter(queue=queue).annotate(
        done=Coalesce(Subquery(done_per_item, output_field=IntegerField()), 0)
    )
    totals = items.aggregate(
        items=Count("pk"),
        wanted=Coalesce(Sum("reviewers_wanted"), 0),
        complete=Count("pk", filter=Q(done__gte=F("reviewers_wanted"))),
    )
    counts = ReviewAssignment.objects.filter(item__queue=queue).aggregate(
        **{status: Count("pk", filter=Q(status=status)) for status in Status.values}
    )
    return QueueProgress(
        items=totals["items"],
        items_done=totals["complete"],
        reviews_wanted=totals["wanted"],
        reviews_done=counts[Status.DONE],
        skipped=counts[Status.SKIPPED],
        second_look=counts[Status.SECOND_LOOK],
        pending=counts[Status.PENDING],
    )


def reviewer_progress(queue: ReviewQueue) -> list[ReviewerProgress]:
    """Each reviewer's figures in the queue: the members, then anyone who
    left it but had reviewed, by name."""
    rows = (
        ReviewAssignment.objects.filter(item__queue=queue)
        .values("reviewer_id", "reviewer__username")
        .annotate(
            assigned=Count("pk"),
            **{s: Count("pk", filter=Q(status=s)) for s in Status.values},
        )
        .order_by()
    )
    by_user = {row["reviewer_id"]: row for row in rows}
    members = QueueMember.objects.filter(queue=queue).select_related("user")
    names = {m.user_id: m.user.get_username() for m in members}
    for uid, row in by_user.items():
        names.setdefault(uid, row["reviewer__username"])
    out = []
    for uid, name in sorted(names.items(), key=lambda pair: pair[1]):
        row = by_user.get(uid, {})
        out.append(
            ReviewerProgress(
                user_id=uid,
                username=name,
                assigned=row.get("assigned", 0),
                done=row.get(Status.DONE, 0),
                skipped=row.get(Status.SKIPPED, 0),
                second_look=row.get(Status.SECOND_LOOK, 0),
                pending=row.get(Status.PENDING, 0),
            )
        )
    return out
