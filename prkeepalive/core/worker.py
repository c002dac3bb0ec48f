"""The worker guard: execute the round, or skip it, with one reason.

Priority when several apply (first wins):

1. ``blocked`` (skip): the PR carries ``agents:sync-required`` — an earlier
   round's output could not be landed and waits for a person;
2. ``cap-reached`` (skip): other orchestrator runs of this PR, not counting
   this one, already fill the run cap;
3. ``new-instruction`` (execute): an instruction newer than the last one
   processed, or nothing processed yet, or the head moved since the last
   processed round (new commits are new input; ``detail`` says which);
4. ``no-new-instruction-and-head-unchanged`` (skip): nothing new at all.

The guard skips on new work only for policy (1, 2), never for lack of
history. Deterministic; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from prkeepalive.core.labels import normalise_labels, run_cap
from prkeepalive.core.types import (
    SYNC_REQUIRED_LABEL,
    LastProcessed,
    WorkerAction,
    WorkerDecision,
    WorkerReason,
)


def decide_worker(
    *,
    pr_number: int | None,
    head_sha: str,
    latest_instruction_id: int | None,
    last_processed: LastProcessed,
    labels: Sequence[str],
    other_active_runs: int,
    trace: str,
) -> WorkerDecision:
    """Decide whether the worker executes this round (see module docstring)."""

    def result(
        action: WorkerAction, reason: WorkerReason, detail: str
    ) -> WorkerDecision:
        return WorkerDecision(
            action=action,
            reason=reason,
            pr_number=pr_number,
            head_sha=head_sha,
            instruction_id=latest_instruction_id,
            trace=trace,
            detail=detail,
        )

    if SYNC_REQUIRED_LABEL in normalise_labels(labels):
        return result(
            WorkerAction.SKIP,
            WorkerReason.BLOCKED,
            "the pull request is labelled agents:sync-required: an earlier round's "
            "output waits for a person to land it",
        )
    cap = run_cap(labels)
    if other_active_runs >= cap:
        return result(
            WorkerAction.SKIP,
            WorkerReason.CAP_REACHED,
            f"{other_active_runs} other orchestrator run(s) are active and the cap "
            f"is {cap}",
        )
    last_id = last_processed.instruction_id
    if latest_instruction_id is not None and (
        last_id is None or latest_instruction_id > last_id
    ):
        detail = (
            "no instruction was processed before"
            if last_id is None
            else f"instruction {latest_instruction_id} is newer than {last_id}"
        )
        return result(WorkerAction.EXECUTE, WorkerReason.NEW_INSTRUCTION, detail)
    if not last_processed.head_sha or last_processed.head_sha != head_sha:
        detail = (
            "no head was processed before"
            if not last_processed.head_sha
            else f"the head moved from {last_processed.head_sha[:7]} to "
            f"{head_sha[:7] or 'unknown'}"
        )
        return result(WorkerAction.EXECUTE, WorkerReason.NEW_INSTRUCTION, detail)
    return result(
        WorkerAction.SKIP,
        WorkerReason.UNCHANGED,
        "no instruction newer than the last processed one and the head is unchanged",
    )
