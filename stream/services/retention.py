"""Retention of each agent's bounded thought queue (the stream contract SC-B4).

``stream_cap_enforce`` runs after every publish path; ``stream_prune`` applies
the whole policy (age limits, then the hard cap) and logs the contract's
``[CognitiveStream] prune`` line; beat runs ``stream_prune_all`` every 30 s.
"""

from __future__ import annotations

import dataclasses
import logging
from datetime import datetime

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from core.times import epoch_ms
from stream.core.retention import QueueItem, RetentionPolicy, plan_prune
from stream.models import Agent, Thought, WorldSnapshot
from stream.selectors_publish import queue_holds_more_than
from stream.services.counters import (
    queue_held_count,
    queue_held_drop,
    queue_held_locked,
)

logger = logging.getLogger(__name__)


def retention_policy() -> RetentionPolicy:
    return RetentionPolicy(
        hard_cap=settings.STREAM_QUEUE_HARD_CAP,
        processed_max_age_ms=settings.STREAM_PROCESSED_MAX_AGE_S * 1000,
        actionable_max_age_ms=settings.STREAM_ACTIONABLE_MAX_AGE_S * 1000,
        other_max_age_ms=settings.STREAM_OTHER_MAX_AGE_S * 1000,
    )


def retention_text() -> str:
    """How long thoughts are kept, in the words the pruned-thought page
    uses (from the settings the prune task applies)."""
    policy = retention_policy()
    return (
        f"processed thoughts for {_span(policy.processed_max_age_ms)}, "
        f"actionable ones waiting for planning for "
        f"{_span(policy.actionable_max_age_ms)}, all others for "
        f"{_span(policy.other_max_age_ms)}, and at most {policy.hard_cap} "
        "per agent (the oldest go first)"
    )


def _span(ms: int) -> str:
    seconds = ms // 1000
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} seconds"


def thought_was_pruned(pk: int) -> bool:
    """Whether thought ``pk`` existed and is gone: no thought has that id
    now, and a thought with a greater id exists (ids are handed out in
    order and never reused, and retention removes the oldest first). An id
    never handed out, or one another agent's thought holds, is not."""
    if pk <= 0 or Thought.objects.filter(pk=pk).exists():
        return False
    newest = Thought.objects.aggregate(newest=Max("pk"))["newest"]
    return newest is not None and pk < newest


def stream_prune(
    *,
    agent: Agent,
    now: datetime | None = None,
    keep: int | None = None,
    snapshots: bool = True,
) -> int:
    """Apply the retention policy to one agent's queue (SC-B4); returns dropped.

    ``keep`` (at most the hard cap) prunes the over-cap part down to that
    many instead of to the cap itself. ``snapshots`` false leaves the
    agent's world snapshots alone (a publish that stored none).
    """
    now = now or timezone.now()
    rows = Thought.objects.filter(agent=agent).values_list(
        "pk", "created_at", "processed", "convert_eligible"
    )
    items = [
        QueueItem(
            pk=pk,
            created_ms=epoch_ms(created),
            processed=processed,
            actionable=bool(ce),
        )
        for pk, created, processed, ce in rows
    ]
    policy = retention_policy()
    if keep is not None:
        policy = dataclasses.replace(policy, hard_cap=min(keep, policy.hard_cap))
    drop = plan_prune(items, now_ms=epoch_ms(now), policy=policy)
    dropped = 0
    # The deletes load only the ids of what they remove (the tasks that point
    # at a thought are set free by id), not whole rows whose content and
    # metadata nothing reads.
    for start in range(0, len(drop), 900):  # SQLite's bound-parameter limit
        batch = Thought.objects.filter(pk__in=drop[start : start + 900])
        # The thoughts deleted, not the rows a cascade took with them.
        dropped += batch.only("pk").delete()[1].get(Thought._meta.label, 0)
    if snapshots:
        _snapshots_prune(agent)
    logger.info(
        "[CognitiveStream] prune before=%s after=%s dropped=%s",
        len(items),
        len(items) - dropped,
        dropped,
        extra={"agent": agent.name},
    )
    return dropped


def _snapshots_prune(agent: Agent) -> None:
    """Snapshots only feed frames: keep the newest few (and those a
    keep-alive state points at)."""
    keep = list(
        WorldSnapshot.objects.filter(agent=agent)
        .order_by("-received_at", "-pk")
        .values_list("pk", flat=True)[:50]
    )
    WorldSnapshot.objects.filter(agent=agent).exclude(pk__in=keep).exclude(
        keepalivestate_frames__isnull=False
    ).only("pk").delete()


def stream_cap_enforce(
    *,
    agent: Agent,
    now: datetime | None = None,
    snapshots: bool = True,
    held: int | None,
) -> int:
    """Prune the agent's queue when it holds more than the hard cap (SC-B4).

    Called after every publish (percepts, thoughts single and batched,
    keep-alive, drive ticks), so no path can leave the queue past the cap,
    with the agent's ``held`` count the publish's transaction returned
    (``counters_add_stored`` adds the thoughts it stored to it): a number
    never below the queue's size, ``None`` when unknown. While it is at or
    below the cap nothing else runs, whatever the queue's size or the cap.
    Past it, the exact check reads at most cap + 1 index entries; over the
    cap it prunes down to 95% of it, so a queue held at the cap by a flood
    is pruned once per 5% of inserts, not on every one, and ``queue_held``
    loses what was dropped (it is counted again when it was unknown, or the
    queue turned out not over the cap); the check, the prune and the held
    count's change run with the agent's counters row locked
    (``queue_held_locked``), so concurrent publishes and prunes agree.
    Over the cap the prune runs in the request, bounded: it reads the
    agent's queue (the cap and the last publish's rows) and deletes what the
    policy drops, so the cap holds when the answer leaves. ``snapshots``
    false skips the snapshots' cleanup, for a publish that stored none
    (thoughts; percepts store them). Returns the number dropped.
    """
    cap = settings.STREAM_QUEUE_HARD_CAP
    if held is not None and held <= cap:
        return 0
    with queue_held_locked(agent=agent):
        if not queue_holds_more_than(agent=agent, count=cap):
            # Unknown, or above the queue (deletions outside a publish).
            queue_held_count(agent=agent, cap=cap)
            return 0
        dropped = stream_prune(
            agent=agent, now=now, keep=cap - max(cap // 20, 1), snapshots=snapshots
        )
        if held is None:
            queue_held_count(agent=agent, cap=cap)
        else:
            # It was not below the queue, and exactly the dropped left.
            queue_held_drop(agent=agent, count=dropped)
    return dropped


def stream_prune_all(*, now: datetime | None = None) -> int:
    dropped = 0
    for agent in Agent.objects.filter(is_active=True):
        dropped += stream_prune(agent=agent, now=now)
    return dropped
