"""A new review queue and its first items, in one step.

The queue page asks for the queue and how to fill it together; a fill that
is refused (a subject that does not exist, a rule that matches nothing)
must leave no empty queue behind, so both happen in one transaction and a
refusal undoes the queue. The fills themselves are ``reviews.services.queues``
and ``reviews.services.fill_sources``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from reviews.core.rules import refusal
from reviews.models import ReviewQueue, ScoreConfig, Subject
from reviews.services.fill_sources import (
    queue_fill_decisions,
    queue_fill_episodes,
    queue_fill_search,
    queue_fill_thoughts,
)
from reviews.services.queues import (
    FillResult,
    items_add,
    queue_create,
    queue_fill_compare,
    queue_fill_rule,
    users_by_name,
)

HAND, SAMPLE, HALLUCINATIONS, COMPARE = "hand", "sample", "hallucinations", "compare"
THOUGHTS, SEARCH, EPISODES, DECISIONS = "thoughts", "search", "episodes", "decisions"
FILLS = (HAND, SAMPLE, HALLUCINATIONS, COMPARE, THOUGHTS, SEARCH, EPISODES, DECISIONS)
# Compare selections name two runs as base...candidate, as the compare page does.
RUN_PAIR_SEPARATOR = "..."


@dataclass(frozen=True, slots=True)
class Fill:
    """How to fill a new queue: ``how`` is one of ``FILLS``; ``kind`` and
    ``refs`` for a fill by hand; ``run_id`` (and ``percent``) for a rule;
    ``compare`` (``base...candidate``) and ``cases`` (case ids, or None for
    every flip) for a compare selection; ``agent``, ``since``, ``until`` and
    ``eligible`` for an agent's thoughts; ``saved_search`` (its id) for what
    a saved search finds; ``batch`` (and ``percent``) for a gridworld
    batch's episodes; ``pull`` (``owner/name#number``, with ``since`` and
    ``until``) for a pull request's keepalive decisions."""

    how: str
    kind: str = Subject.SCENARIO_RESULT.value
    refs: tuple[str, ...] = ()
    run_id: str = ""
    percent: Any = None
    compare: str = ""
    cases: tuple[str, ...] | None = None
    agent: str = ""
    since: datetime | None = None
    until: datetime | None = None
    eligible: str = ""
    saved_search: str = ""
    batch: str = ""
    pull: str = ""


def compare_pair(text: str) -> tuple[str, str] | None:
    """``(base, candidate)`` of ``base...candidate``; None for anything else."""
    base, separator, candidate = text.strip().partition(RUN_PAIR_SEPARATOR)
    if not separator or not base or not candidate:
        return None
    return base, candidate


def refs_from_text(text: str) -> tuple[str, ...]:
    """The refs pasted into a box: one a line (commas also separate), blank
    lines and surrounding spaces dropped, each once, in order."""
    found: list[str] = []
    for line in text.replace(",", "\n").splitlines():
        ref = line.strip()
        if ref and ref not in found:
            found.append(ref)
    return tuple(found)


def queue_create_filled(
    *,
    name: str,
    configs: Sequence[ScoreConfig],
    member_names: Sequence[str],
    fill: Fill,
    description: str = "",
    assignment: str = ReviewQueue.Assignment.ROUND_ROBIN,
    overlap_percent: Any = 0,
    user: Any = None,
) -> tuple[ReviewQueue, FillResult]:
    """Create the queue with its reviewers and fill it; ``SchemaInvalid``
    naming the field at fault (the queue's, ``members``, ``fill``, ``refs``,
    ``rule``, ``run_id``, ``percent``, ``cases``, ``agent``, ``thoughts``,
    ``until``, ``eligible``, ``search``, ``batch``, ``pull``) and nothing
    stored."""
    if fill.how not in FILLS:
        raise refusal("fill", f"the fill must be one of {', '.join(FILLS)}.")
    members = users_by_name(member_names)
    with transaction.atomic():
        queue = queue_create(
            name=name,
            configs=configs,
            description=description,
            assignment=assignment,
            overlap_percent=overlap_percent,
            members=members,
            user=user,
        )
        result = _fill(queue, fill, user)
    return queue, result


def queue_fill(queue: ReviewQueue, fill: Fill, *, user: Any = None) -> FillResult:
    """Add items to an existing queue as ``fill`` says; ``SchemaInvalid``
    naming the field at fault and nothing added (subjects already in the
    queue are counted as such, not added twice)."""
    if fill.how not in FILLS:
        raise refusal("fill", f"the fill must be one of {', '.join(FILLS)}.")
    return _fill(queue, fill, user)


def _fill(queue: ReviewQueue, fill: Fill, user: Any) -> FillResult:
    if fill.how == HAND:
        if fill.kind not in Subject.values:
            raise refusal(
                "kind", f"the kind must be one of {', '.join(Subject.values)}."
            )
        if not fill.refs:
            raise refusal("refs", "paste at least one ref.")
        return items_add(
            queue, [(fill.kind, ref) for ref in fill.refs], user=user, field="refs"
        )
    if fill.how in (SAMPLE, HALLUCINATIONS):
        return queue_fill_rule(
            queue, rule=fill.how, run_id=fill.run_id, percent=fill.percent, user=user
        )
    if fill.how in (THOUGHTS, SEARCH, EPISODES, DECISIONS):
        return _fill_from_source(queue, fill, user)
    pair = compare_pair(fill.compare)
    if pair is None:
        raise refusal("compare", "name two runs as base...candidate.")
    return queue_fill_compare(
        queue,
        base_run_id=pair[0],
        candidate_run_id=pair[1],
        case_ids=fill.cases,
        user=user,
    )


def _fill_from_source(queue: ReviewQueue, fill: Fill, user: Any) -> FillResult:
    if fill.how == THOUGHTS:
        return queue_fill_thoughts(
            queue,
            agent=fill.agent,
            since=fill.since,
            until=fill.until,
            eligible=fill.eligible,
            user=user,
        )
    if fill.how == SEARCH:
        return queue_fill_search(queue, saved_search_id=fill.saved_search, user=user)
    if fill.how == EPISODES:
        return queue_fill_episodes(
            queue,
            batch_id=fill.batch,
            percent=100 if fill.percent is None else fill.percent,
            user=user,
        )
    return queue_fill_decisions(
        queue, pull=fill.pull, since=fill.since, until=fill.until, user=user
    )
