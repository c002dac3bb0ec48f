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
none). The decision is :func:`prkeepalive.core.facts.decide`, the service's
own; a recorded decision's ``inputs`` are such a document.

``lastProcessed`` adds the ``WORKER:`` line of the round a dispatch starts
(instruction id = the activation for the explanation); ``worker`` adds
``SYNC:``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from prkeepalive.core.facts import Facts, decide, resolve_pr
from prkeepalive.core.lanes import lane_for, unhandled_reason
from prkeepalive.core.summary import decision_line, sync_line, worker_line
from prkeepalive.core.sync import decide_sync
from prkeepalive.core.types import (
    Comment,
    DispatchDecision,
    Event,
    Policy,
    PullRequest,
    RecordedRound,
    SyncAction,
    SyncAttempt,
)
from prkeepalive.core.wire import (
    _Reader,
    parse_event,
    parse_gate,
    parse_last_processed,
    parse_state_comment,
)
from prkeepalive.core.worker import decide_worker


@dataclass(frozen=True, slots=True)
class Explanation:
    handled: bool
    ignored_reason: str
    decision: DispatchDecision | None
    lines: tuple[str, ...]
    words: str


def _policy(raw: Any, reader: _Reader) -> Policy:
    entry = reader.obj(raw, "state.policy", required=False)

    def names(key: str) -> tuple[str, ...]:
        values = reader.list_(entry.get(key), f"state.policy.{key}")
        return tuple(str(v) for v in values if isinstance(v, str) and v.strip())

    default = Policy()
    return Policy(
        agent_aliases=names("agentAliases") or default.agent_aliases,
        allowed_authors=names("allowedAuthors"),
        automation_logins=names("automationLogins"),
        gate_workflow=reader.str_(
            entry.get("gateWorkflow"), "state.policy.gateWorkflow"
        )
        or default.gate_workflow,
    )


def _rounds(raw: Any, reader: _Reader) -> tuple[RecordedRound, ...]:
    out = []
    for i, item in enumerate(reader.list_(raw, "state.rounds")):
        path = f"state.rounds[{i}]"
        entry = reader.obj(item, path)
        number = reader.int_(entry.get("number"), f"{path}.number")
        activation = reader.int_(entry.get("activationId"), f"{path}.activationId")
        instruction = reader.int_(
            entry.get("instructionId"), f"{path}.instructionId", required=False
        )
        trace = reader.str_(entry.get("trace"), f"{path}.trace", required=True)
        head = reader.str_(entry.get("headBefore"), f"{path}.headBefore")
        if number is not None and activation is not None:
            out.append(RecordedRound(number, trace, activation, instruction, head))
    return tuple(out)


def explain(document: Any) -> Explanation:
    """Decide a pasted event against a pasted state (see module docstring).

    Raises ``SchemaInvalid`` with every problem when the document is malformed.
    """
    reader = _Reader()
    root = reader.obj(document, "$")
    event_name = reader.str_(root.get("event"), "event", required=True)
    state = reader.obj(root.get("state"), "state", required=False)
    reader.raise_if_any("explain request")
    try:
        event = parse_event(event_name, root.get("payload"))
    except SchemaInvalid as exc:
        reader.problems.extend(exc.problems)
        event = Event(name=event_name)
    policy = _policy(state.get("policy"), reader)
    labels = tuple(
        str(v)
        for v in reader.list_(state.get("labels"), "state.labels")
        if isinstance(v, str)
    )
    gate = parse_gate(state.get("gate"), "state.gate", reader)
    active = reader.int_(state.get("activeRuns", 0), "state.activeRuns") or 0
    comments: list[Comment] = []
    for i, raw in enumerate(reader.list_(state.get("comments"), "state.comments")):
        c = parse_state_comment(raw, f"state.comments[{i}]", reader)
        if c is not None:
            comments.append(c)
    pr_raw = reader.obj(state.get("pr"), "state.pr", required=False)
    pr_number = reader.int_(pr_raw.get("number"), "state.pr.number", required=False)
    head = reader.str_(pr_raw.get("headSha"), "state.pr.headSha")
    issue_body = reader.str_(state.get("issueBody"), "state.issueBody")
    last = parse_last_processed(
        state.get("lastProcessed"), "state.lastProcessed", reader
    )
    rounds = _rounds(state.get("rounds"), reader)
    commit_pulls = tuple(
        n
        for i, v in enumerate(
            reader.list_(state.get("headCommitPulls"), "state.headCommitPulls")
        )
        if (n := reader.int_(v, f"state.headCommitPulls[{i}]")) is not None
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
    known = (
        PullRequest(number=pr_number, head_sha=head, comments=tuple(comments))
        if pr_number
        else None
    )
    pr = resolve_pr(event, known, commit_pulls)
    if pr is not None and not pr.comments:
        pr = PullRequest(
            number=pr.number, head_sha=pr.head_sha or head, comments=tuple(comments)
        )
    facts = Facts(
        pr=pr,
        labels=labels,
        gate=gate,
        active_runs=active,
        issue_body=issue_body,
        rounds=rounds,
        head_commit_pulls=commit_pulls,
    )
    decision = decide(event, facts, policy)
    lines = [decision_line(decision)]
    if decision.ok and "lastProcessed" in state:
        worker = decide_worker(
            pr_number=decision.pr_number,
            head_sha=decision.head_sha,
            latest_instruction_id=decision.activation_id,
            last_processed=last,
            labels=labels,
            other_active_runs=active,
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
