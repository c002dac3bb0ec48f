"""Retention of the bounded thought queue (SC-B4).

Given the queue's rows (as small value objects) and ``now``, decide which to
drop: age limits first, then the hard cap, oldest non-actionable first. An
unacknowledged actionable thought inside its window is never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    hard_cap: int = 500
    processed_max_age_ms: int = 24 * 3600 * 1000
    actionable_max_age_ms: int = 30 * 60 * 1000
    other_max_age_ms: int = 10 * 60 * 1000


@dataclass(frozen=True, slots=True)
class QueueItem:
    pk: int
    created_ms: int
    processed: bool
    actionable: bool  # convertEligible is True


def _expired(item: QueueItem, now_ms: int, policy: RetentionPolicy) -> bool:
    age = now_ms - item.created_ms
    if item.processed:
        return age > policy.processed_max_age_ms
    if item.actionable:
        return age > policy.actionable_max_age_ms
    return age > policy.other_max_age_ms


def _protected(item: QueueItem) -> bool:
    return item.actionable and not item.processed


def plan_prune(
    items: list[QueueItem], *, now_ms: int, policy: RetentionPolicy
) -> tuple[int, ...]:
    """Primary keys to drop, sorted. Deterministic for the same input."""
    drop = {i.pk for i in items if _expired(i, now_ms, policy)}
    kept = [i for i in items if i.pk not in drop]
    excess = len(kept) - policy.hard_cap
    if excess > 0:
        # Processed first, then unprocessed non-actionable; oldest first in each.
        candidates = sorted(
            (i for i in kept if not _protected(i)),
            key=lambda i: (not i.processed, i.created_ms, i.pk),
        )
        drop.update(i.pk for i in candidates[:excess])
    return tuple(sorted(drop))
