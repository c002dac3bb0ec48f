"""Dry run: one event plus the state a decision reads -> the decision, its
reason in words and the exact summary lines. Touches nothing.

The request document (camelCase)::

    {"event": "issue_comment" | "workflow_run",
     "payload": {... the GitHub webhook payload ...},
     "state": {"labels": [...], "gate": "success|pending|failure",
               "activeRuns": 0, "pr": {"number": 1, "headSha": "..."},
               "comments": [{"id", "author", "authorType", "body",
                             "reactions": ["rocket"], "createdAt"}],
               "issueBody": "...", "policy": {"agentAliases", "allowedAuthors",
               "automationLogins", "gateWorkflow"},
               "rounds": [{"number", "trace", "activationId", "instructionId",
                           "headBefore"}],
               "headCommitPulls": [12],
               "lastProcessed": {"instructionId", "headSha"},
               "worker": {"done": true, "headAfter": "...",
                          "attempts": [{"action", "headChanged"}]}}}

``rounds`` are the rounds already recorded for the PR and
``headCommitPulls`` the PRs of a Gate run's head commit (a fork PR's run names
none). ``event``, ``payload`` and ``state`` but the two keys below are the
wire form of ``prkeepalive.core.inputs.DecisionInputs``; the decision is
:func:`prkeepalive.core.facts.decide`, the service's own; a recorded
decision's ``inputs`` are such a document.

``lastProcessed`` adds the ``WORKER:`` line of the round a dispatch starts
(instruction id = the activation for the explanation); ``worker`` adds
``SYNC:``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import SchemaProblem
from prkeepalive.core.facts import decide
from prkeepalive.core.inputs import inputs_from_wire
from prkeepalive.core.lanes import lane_for, unhandled_reason
from prkeepalive.core.summary import decision_line, sync_line, worker_line
from prkeepalive.core.sync import decide_sync
from prkeepalive.core.types import (
    DispatchDecision,
    SyncAction,
    SyncAttempt,
)
from prkeepalive.core.wire import _Reader, parse_last_processed
from prkeepalive.core.worker import decide_worker


@dataclass(frozen=True, slots=True)
class Explanation:
    handled: bool
    ignored_reason: str
    decision: DispatchDecision | None
    lines: tuple[str, ...]
    words: str


def explain(document: Any) -> Explanation:
    """Decide a pasted event against a pasted state (see module docstring).

    Raises ``SchemaInvalid`` with every problem when the document is malformed.
    """
    reader = _Reader()
    inputs = inputs_from_wire(document, reader)
    event, facts, policy = inputs.event, inputs.facts, inputs.policy
    raw_state = document.get("state")  # a mapping: inputs_from_wire checked it
    state: Mapping[str, Any] = raw_state if isinstance(raw_state, Mapping) else {}
    last = parse_last_processed(
        state.get("lastProcessed"), "state.lastProcessed", reader
    )
    worker_raw = reader.obj(state.get("worker"), "state.worker", required=False)
    attempts: list[SyncAttempt] = []
    for i, raw in enumerate(
        reader.list_(worker_raw.get("attempts"), "state.worker.attempts")
    ):
        entry = reader.obj(raw, f"state.worker.attempts[{i}]")
        try:
            action = SyncAction(str(entry.get("action", "")))
        except ValueError:
            reader.problems.append(
                SchemaProblem(
                    f"state.worker.attempts[{i}].action",
                    "enum",
                    "must be update-branch or create-pr",
                )
            )
            continue
        attempts.append(SyncAttempt(action, bool(entry.get("headChanged"))))
    reader.raise_if_any("explain request")

    lane = lane_for(event, policy)
    if lane is None:
        why = unhandled_reason(event, policy)
        return Explanation(False, why, None, (), f"Nothing is decided: {why}.")
    decision = decide(event, facts, policy)
    lines = [decision_line(decision)]
    if decision.ok and "lastProcessed" in state:
        worker = decide_worker(
            pr_number=decision.pr_number,
            head_sha=decision.head_sha,
            latest_instruction_id=decision.activation_id,
            last_processed=last,
            labels=facts.labels,
            other_active_runs=facts.active_runs,
            trace=decision.trace,
        )
        lines.append(worker_line(worker))
    if decision.ok and "worker" in state:
        sync = decide_sync(
            worker_done=bool(worker_raw.get("done")),
            head_before=decision.head_sha,
            head_after=str(worker_raw.get("headAfter") or decision.head_sha),
            attempts=attempts,
            trace=decision.trace,
        )
        while not sync.is_final:
            assert sync.next_action is not None
            attempts.append(SyncAttempt(sync.next_action, False))
            sync = decide_sync(
                worker_done=True,
                head_before=decision.head_sha,
                head_after=decision.head_sha,
                attempts=attempts,
                trace=decision.trace,
            )
        lines.append(sync_line(sync))
    verdict = "The round is dispatched" if decision.ok else "The round did not run"
    return Explanation(
        True, "", decision, tuple(lines), f"{verdict}: {decision.detail}."
    )
