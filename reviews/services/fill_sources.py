"""Fills that read the other apps: the thoughts of an agent in a time range,
the subjects a saved search finds, the episodes of a gridworld batch and the
keepalive decisions of a pull request or of a time range.

Each fill adds at most ``MAX_ITEMS`` items; when more match, a sample of
that many is kept, chosen by a hash of the source and each record (the same
fill over the same records keeps the same ones). A fill that matches
nothing, or names what the person may not see, is refused naming the field
at fault, and nothing is stored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import Http404

from core.errors import NotFound
from gridworld.selectors import batch_get, episode_list
from prkeepalive.selectors import decisions_for, pull_get
from prkeepalive.selectors_reviews import decision_ids_in_range
from reviews.core.rules import refusal
from reviews.core.sources import (
    capped_sample,
    eligible_choice,
    pull_parse,
    share_sample,
    time_range_check,
)
from reviews.models import ReviewItem, ReviewQueue, Subject
from reviews.services.queues import FillResult, items_add, queue_fill_subjects
from search.core.query import QueryInvalid
from search.facade import saved_search_subjects
from stream.selectors_reviews import agent_visible_named, thought_ids_in_range

# The most items one of these fills adds (a sample of this many when more match).
MAX_ITEMS = 1000
# The most records read to draw that sample from (newest first).
MAX_SCANNED = 100_000


def queue_fill_thoughts(
    queue: ReviewQueue,
    *,
    agent: Any,
    since: datetime | None = None,
    until: datetime | None = None,
    eligible: Any = None,
    user: Any,
) -> FillResult:
    """Fill with the thoughts of the agent named ``agent`` created in
    [``since``, ``until``), optionally only the eligible (``yes``) or the
    others (``no``). Refused naming ``agent`` when ``user`` may not see it
    (or it is nobody), ``until`` for a range that ends before it starts,
    ``eligible`` for another filter, and ``thoughts`` when none match."""
    since, until = time_range_check(since, until)
    wanted = eligible_choice(eligible)
    found = None
    if getattr(user, "is_authenticated", False):
        found = agent_visible_named(user=user, name=agent)
    if found is None:
        raise refusal("agent", f"there is no agent {str(agent)[:100]!r} you can see.")
    ids = thought_ids_in_range(
        agent=found, since=since, until=until, eligible=wanted, limit=MAX_SCANNED
    )
    if not ids:
        raise refusal("thoughts", f"agent {found.name} has no thoughts in that range.")
    refs = [str(pk) for pk in ids]
    return _sample_add(queue, Subject.THOUGHT, refs, found.name, user, "thoughts")


def queue_fill_search(
    queue: ReviewQueue, *, saved_search_id: Any, user: Any
) -> FillResult:
    """Fill with what the saved search finds now among what ``user`` may
    read (newest first, at most ``MAX_ITEMS``). Refused naming ``search``
    when it is not the user's saved search, no longer parses or finds
    nothing."""
    pk = _positive(saved_search_id)
    if pk is None or not getattr(user, "is_authenticated", False):
        raise refusal("search", "pick one of your saved searches.")
    try:
        subjects = saved_search_subjects(pk, user, MAX_ITEMS)
    except NotFound:
        raise refusal("search", "pick one of your saved searches.") from None
    except QueryInvalid as error:
        raise refusal(
            "search", f"the saved search no longer works: {error.reason}"
        ) from None
    if not subjects:
        raise refusal("search", "the saved search finds nothing now.")
    return queue_fill_subjects(queue, subjects, user=user)


def queue_fill_episodes(
    queue: ReviewQueue, *, batch_id: Any, percent: Any = 100, user: Any = None
) -> FillResult:
    """Fill with ``percent``% of the episodes of gridworld batch
    ``batch_id`` (all of them at 100, at most ``MAX_ITEMS``). Refused naming
    ``batch`` for a batch that does not exist or has no episodes, and
    ``percent`` for a share that is not above 0 and at most 100."""
    share = _share(percent)
    pk = _positive(batch_id)
    batch = None
    if pk is not None:
        try:
            batch = batch_get(pk)
        except Http404:
            batch = None
    if batch is None:
        raise refusal("batch", f"there is no gridworld batch {str(batch_id)[:40]!r}.")
    ids = list(episode_list(batch).values_list("pk", flat=True)[:MAX_SCANNED])
    if not ids:
        raise refusal("batch", f"batch {batch.pk} has no episodes yet.")
    seed = f"batch-{batch.pk}"
    refs = share_sample([str(pk) for pk in ids], share, seed=seed)
    return _sample_add(queue, Subject.EPISODE, refs, seed, user, "batch")


def queue_fill_decisions(
    queue: ReviewQueue,
    *,
    pull: Any = "",
    since: datetime | None = None,
    until: datetime | None = None,
    user: Any = None,
) -> FillResult:
    """Fill with the keepalive decisions made in [``since``, ``until``): those
    of the pull request ``pull`` (``owner/name#number``), or, with no pull
    request, every one in the range (then at least one end is needed).
    Refused naming ``pull`` for a PR that is not known, a range with no
    decisions or neither a PR nor a range, ``until`` for a range that ends
    before it starts."""
    since, until = time_range_check(since, until)
    if isinstance(pull, str) and not pull.strip():
        if since is None and until is None:
            raise refusal("pull", "name a pull request or a time range.")
        ids = decision_ids_in_range(since=since, until=until, limit=MAX_SCANNED)
        if not ids:
            raise refusal("pull", "no keepalive decision was made in that range.")
        return _decisions_add(queue, [str(pk) for pk in ids], "range", user)
    parts = pull_parse(pull)
    if parts is None:
        raise refusal("pull", "name the pull request as owner/name#number.")
    owner, name, number = parts
    try:
        found = pull_get(owner=owner, name=name, number=number)
    except Http404:
        message = f"there is no pull request {owner}/{name}#{number}."
        raise refusal("pull", message) from None
    decisions = [
        d
        for d in decisions_for(found, limit=MAX_SCANNED)
        if (since is None or d.created_at >= since)
        and (until is None or d.created_at < until)
    ]
    if not decisions:
        raise refusal(
            "pull", f"{owner}/{name}#{number} has no decisions in that range."
        )
    seed = f"{owner}/{name}#{number}"
    return _decisions_add(queue, [str(d.pk) for d in decisions], seed, user)


def _decisions_add(
    queue: ReviewQueue, refs: list[str], seed: str, user: Any
) -> FillResult:
    return _sample_add(queue, Subject.KEEPALIVE_DECISION, refs, seed, user, "pull")


def _sample_add(
    queue: ReviewQueue, kind: str, refs: list[str], seed: str, user: Any, field: str
) -> FillResult:
    """Add at most ``MAX_ITEMS`` of ``refs`` (a sample stable for ``seed``)
    as items of ``kind`` chosen by rule; a refusal names ``field``."""
    chosen = capped_sample(refs, MAX_ITEMS, seed=seed)
    return items_add(
        queue,
        [(kind, ref) for ref in chosen],
        origin=ReviewItem.Origin.RULE,
        user=user,
        field=field,
    )


def _positive(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and 0 < value < 2**63:
        return value
    return None


def _share(value: Any) -> float:
    number = None
    if value is None or value == "":
        number = 100.0
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if number is None or number != number or not 0 < number <= 100:
        raise refusal("percent", "the share must be a number above 0, at most 100.")
    return number
