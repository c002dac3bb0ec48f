"""The inputs of a keepalive decision as one typed record, and its one wire
form.

``DecisionInputs`` is the event, the facts and the policy a decision reads.
``inputs_to_wire`` writes it as the dry run's request (``event``,
``payload``, ``state``; camelCase inside ``state``, GitHub's shape inside
``payload``) and ``inputs_from_wire`` reads such a request back, reporting
every problem at once. A recorded decision keeps that document, with the
instruction a dispatched round posts beside it (``recorded_to_wire``,
``recorded_instruction``): posting it to the dry run prints the recorded
line again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import SchemaInvalid
from prkeepalive.core.facts import Facts, resolve_pr
from prkeepalive.core.instruction import extract_instruction
from prkeepalive.core.types import (
    Comment,
    DispatchDecision,
    Event,
    Policy,
    PullRequest,
    RecordedRound,
)
from prkeepalive.core.wire import (
    _Reader,
    parse_event,
    parse_gate,
    parse_state_comment,
)


@dataclass(frozen=True, slots=True)
class DecisionInputs:
    """Everything a dispatch decision reads."""

    event: Event
    facts: Facts
    policy: Policy


# -- to the wire -----------------------------------------------------------


def _comment_wire(c: Comment) -> dict[str, Any]:
    return {
        "id": c.id,
        "author": c.author,
        "authorType": c.author_type,
        "body": c.body,
        "reactions": list(c.reactions),
        "createdAt": c.created_at,
    }


def event_payload(event: Event) -> dict[str, Any]:
    """The part of a GitHub webhook payload the rules read, rebuilt from
    ``event`` (the reconciler's events were never webhooks)."""
    payload: dict[str, Any] = {"action": event.action}
    if event.name == "issue_comment":
        issue: dict[str, Any] = {"number": event.issue_number}
        if event.is_pull_request:
            issue["pull_request"] = {}
        payload["issue"] = issue
        if event.comment is not None:
            c = event.comment
            payload["comment"] = {
                "id": c.id,
                "body": c.body,
                "user": {"login": c.author, "type": c.author_type},
                "created_at": c.created_at,
                "reactions": list(c.reactions),
            }
    elif event.name == "workflow_run":
        payload["workflow_run"] = {
            "name": event.workflow_name,
            "status": event.status,
            "conclusion": event.conclusion,
            "head_sha": event.head_sha,
            "display_title": event.display_title,
            "pull_requests": [{"number": n} for n in event.pull_numbers],
        }
        if event.activation_comment_id is not None:
            payload["activation_comment_id"] = event.activation_comment_id
    return payload


def inputs_to_wire(inputs: DecisionInputs) -> dict[str, Any]:
    """``inputs`` as a dry-run request (``event``, ``payload``, ``state``)."""
    event, facts, policy = inputs.event, inputs.facts, inputs.policy
    state: dict[str, Any] = {
        "labels": list(facts.labels),
        "gate": facts.gate.value,
        "activeRuns": facts.active_runs,
        "comments": [_comment_wire(c) for c in (facts.pr.comments if facts.pr else ())],
        "issueBody": facts.issue_body,
        "policy": {
            "agentAliases": list(policy.agent_aliases),
            "allowedAuthors": list(policy.allowed_authors),
            "automationLogins": list(policy.automation_logins),
            "gateWorkflow": policy.gate_workflow,
        },
        "rounds": [
            {
                "number": r.number,
                "trace": r.trace,
                "activationId": r.activation_id,
                "instructionId": r.instruction_id,
                "headBefore": r.head_before,
            }
            for r in facts.rounds
        ],
    }
    if facts.pr is not None:
        state["pr"] = {"number": facts.pr.number, "headSha": facts.pr.head_sha}
    if facts.head_commit_pulls:
        state["headCommitPulls"] = list(facts.head_commit_pulls)
    return {"event": event.name, "payload": event_payload(event), "state": state}


# -- from the wire ---------------------------------------------------------


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


def _facts(event: Event, state: Mapping[str, Any], reader: _Reader) -> Facts:
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
    rounds = _rounds(state.get("rounds"), reader)
    commit_pulls = tuple(
        n
        for i, v in enumerate(
            reader.list_(state.get("headCommitPulls"), "state.headCommitPulls")
        )
        if (n := reader.int_(v, f"state.headCommitPulls[{i}]")) is not None
    )
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
    return Facts(
        pr=pr,
        labels=labels,
        gate=gate,
        active_runs=active,
        issue_body=issue_body,
        rounds=rounds,
        head_commit_pulls=commit_pulls,
    )


def inputs_from_wire(document: Any, reader: _Reader | None = None) -> DecisionInputs:
    """A dry-run request as ``DecisionInputs``: the event from ``event`` and
    ``payload``, the facts and the policy from ``state``.

    With a ``reader`` the problems join its list (the caller raises);
    without one, ``SchemaInvalid`` with every problem is raised here."""
    own = reader is None
    reader = reader or _Reader()
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
    facts = _facts(event, state, reader)
    if own:
        reader.raise_if_any("explain request")
    return DecisionInputs(event, facts, policy)


def is_inputs_wire(value: Any) -> bool:
    """Whether a recorded decision's inputs hold a dry-run request."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("event"), str)
        and isinstance(value.get("payload"), Mapping)
        and isinstance(value.get("state"), Mapping)
    )


# -- what a recorded decision keeps ----------------------------------------


def round_instruction(inputs: DecisionInputs, decision: DispatchDecision) -> str:
    """The instruction a dispatched round posts: the segments of the
    activation (as the PR lists it, else as the event carried it), else of
    the linked issue."""
    facts = inputs.facts
    candidates = [*(facts.pr.comments if facts.pr else ()), inputs.event.comment]
    activation_body = next(
        (c.body for c in candidates if c and c.id == decision.activation_id), ""
    )
    return extract_instruction(activation_body, facts.issue_body)


def recorded_to_wire(inputs: DecisionInputs, instruction: str) -> dict[str, Any]:
    """A recorded decision's ``inputs``: the dry-run request of its inputs
    and the instruction a dispatched round posts."""
    return {**inputs_to_wire(inputs), "instruction": instruction}


def recorded_instruction(document: Any) -> str:
    """The instruction a recorded decision keeps ("" when none)."""
    if not isinstance(document, Mapping):
        return ""
    value = document.get("instruction")
    return value if isinstance(value, str) else ""


def recorded_request(document: Any) -> dict[str, Any] | None:
    """The dry-run request inside a recorded decision's ``inputs`` (None
    when it holds none: rows written by hand)."""
    if not is_inputs_wire(document):
        return None
    return {k: document[k] for k in ("event", "payload", "state")}
