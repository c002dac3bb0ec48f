"""The planner's side of the cognitive stream: the actionable feed and acks.

``thoughts_ack`` is the only path to ``processed=true`` (I-4); the contract's
``[CognitiveStream]`` lines are logged here verbatim.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from stream.models import Agent, Thought
from stream.selectors import actionable_counts, actionable_queryset, with_agent

logger = logging.getLogger(__name__)


# --- feeds ------------------------------------------------------------------


def thoughts_actionable(*, agent: Agent, limit: int) -> list[Thought]:
    """The actionable feed, newest first, with its two contract log lines."""
    thoughts = with_agent(
        actionable_queryset(agent).order_by("-created_at", "-pk")[:limit], agent
    )
    # Both counts in one index-only query (stream.selectors.actionable_counts).
    queue_size, actionable_total = actionable_counts(agent=agent)
    returned = len(thoughts)
    logger.info(
        "[CognitiveStream] /actionable: returned=%s queue_size=%s filtered_out=%s",
        returned,
        queue_size,
        queue_size - actionable_total,
        extra={"agent": agent.name, "periodic": returned == 0},
    )
    logger.info(
        "[CognitiveStream] /actionable: returned=%s opt_in_only=true",
        returned,
        extra={"agent": agent.name, "periodic": returned == 0},
    )
    return thoughts


# --- ack --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AckResult:
    requested: int
    acked: int  # processed after the call: newly now or already before
    newly_acked: int
    already_processed: tuple[int, ...]
    unknown: tuple[int, ...]


def thoughts_ack(
    *,
    agent: Agent,
    thought_ids: Iterable[int],
    processed_by: str = "",
    now: datetime | None = None,
) -> AckResult:
    """Mark the agent's thoughts processed; the only path to processed=true.

    Idempotent and safe with concurrent planners: the conditional UPDATE
    (``processed=false`` in the WHERE) sets each row once, whoever wins.
    Unknown or foreign ids are reported, never an error for the others.
    """
    now = now or timezone.now()
    ids = list(dict.fromkeys(int(i) for i in thought_ids))
    by = processed_by[:200]
    with transaction.atomic():
        before = dict(
            Thought.objects.filter(agent=agent, pk__in=ids).values_list(
                "pk", "processed"
            )
        )
        newly = Thought.objects.filter(agent=agent, pk__in=ids, processed=False).update(
            processed=True, processed_at=now, processed_by=by
        )
    unknown = tuple(i for i in ids if i not in before)
    already = tuple(sorted(pk for pk, processed in before.items() if processed))
    acked = len(before)
    logger.info(
        "[CognitiveStream] Acked %s/%s thoughts",
        acked,
        len(ids),
        extra={"agent": agent.name, "newly_acked": newly, "unknown": len(unknown)},
    )
    return AckResult(len(ids), acked, newly, already, unknown)
