"""The branch-sync ladder: land the agent's output into the PR head.

When the worker reports done but the head did not move:
``update-branch`` (then poll the head) -> ``create-pr`` with auto-merge (then
poll the head) -> ``escalate`` and label ``agents:sync-required``. When the
worker is not done, or the head already moved, there is nothing to land
(``skip``). The caller performs each rung and reports it back as a
``SyncAttempt``; this module only says what comes next and how it ended.
"""

from __future__ import annotations

from collections.abc import Sequence

from prkeepalive.core.types import (
    SYNC_REQUIRED_LABEL,
    SyncAction,
    SyncAttempt,
    SyncDecision,
)

LADDER: tuple[SyncAction, ...] = (SyncAction.UPDATE_BRANCH, SyncAction.CREATE_PR)


def decide_sync(
    *,
    worker_done: bool,
    head_before: str,
    head_after: str,
    attempts: Sequence[SyncAttempt],
    trace: str,
) -> SyncDecision:
    """The next rung to try, or the final outcome of the ladder."""
    moved = bool(head_after) and head_after != head_before
    if not worker_done:
        return SyncDecision(
            None, SyncAction.SKIP, moved, trace, "the worker did not report done"
        )
    if moved and not attempts:
        return SyncDecision(
            None,
            SyncAction.SKIP,
            True,
            trace,
            "the worker's commits are already on the pull request head",
        )
    for attempt in attempts:
        if attempt.head_changed:
            return SyncDecision(
                None,
                attempt.action,
                True,
                trace,
                f"{attempt.action.value} moved the pull request head",
            )
    tried = [a.action for a in attempts]
    for rung in LADDER:
        if rung not in tried:
            return SyncDecision(rung, rung, False, trace, f"try {rung.value}")
    return SyncDecision(
        None,
        SyncAction.ESCALATE,
        False,
        trace,
        "neither update-branch nor create-pr moved the head: a person must land "
        "the output",
        add_labels=(SYNC_REQUIRED_LABEL,),
    )
