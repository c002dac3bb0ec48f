"""The facts a dispatch decision reads, and the one function that decides on
them.

Whoever gathers the facts — the webhook service and the reconciler (from
GitHub and the recorded rounds), the Actions command (from GitHub), a person
in the dry run (pasted) — hands them to :func:`decide`, so the same facts
always give the same decision. :func:`facts_document` writes them in the
dry run's request form; every recorded decision keeps that document, and
posting it to the dry run prints the recorded line again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prkeepalive.core.lanes import decide_dispatch
from prkeepalive.core.types import (
    Comment,
    DispatchDecision,
    Event,
    GateConclusion,
    Policy,
    PullRequest,
    RecordedRound,
)


@dataclass(frozen=True, slots=True)
class Facts:
    """What a decision reads besides the event.

    ``pr`` is the resolved pull request with its comments (None: none could
    be resolved); ``head_commit_pulls`` the PRs GitHub named for a Gate run's
    head commit when the run named none (fork PRs); ``rounds`` the rounds
    already recorded for the PR (empty where nothing is recorded).
    """

    pr: PullRequest | None
    labels: tuple[str, ...] = ()
    gate: GateConclusion = GateConclusion.PENDING
    active_runs: int = 0
    issue_body: str = ""
    rounds: tuple[RecordedRound, ...] = ()
    head_commit_pulls: tuple[int, ...] = ()


def pull_number(event: Event, head_commit_pulls: tuple[int, ...] = ()) -> int | None:
    """The PR an event is about: the issue of a PR comment; a Gate run's
    first linked PR, else the first PR of its head commit."""
    if event.name == "issue_comment":
        return event.issue_number if event.is_pull_request else None
    if event.pull_numbers:
        return event.pull_numbers[0]
    return head_commit_pulls[0] if head_commit_pulls else None


def resolve_pr(
    event: Event, known: PullRequest | None, head_commit_pulls: tuple[int, ...] = ()
) -> PullRequest | None:
    """The PR of an event given the one the state describes (``known``):
    see :func:`pull_number`; with no number at all, the known PR whose head
    is the Gate run's head commit (a fork PR)."""
    number = pull_number(event, head_commit_pulls)
    if number is not None:
        if known and known.number == number:
            return known
        head = event.head_sha if event.name == "workflow_run" else ""
        return PullRequest(number=number, head_sha=head)
    if event.name == "issue_comment":
        return None
    if known and known.head_sha and known.head_sha == event.head_sha:
        return known
    return None


def activation_of(event: Event, pr: PullRequest | None) -> Comment | None:
    """The comment lane's comment as the PR lists it now (reactions
    included), else as the event carried it; for the Gate lane the comment
    an earlier step handed over, when the PR has it."""
    by_id = {c.id: c for c in (pr.comments if pr else ())}
    if event.name == "issue_comment":
        if event.comment is None:
            return None
        return by_id.get(event.comment.id, event.comment)
    if event.activation_comment_id is None:
        return None
    return by_id.get(event.activation_comment_id)


def decide(event: Event, facts: Facts, policy: Policy) -> DispatchDecision:
    """The dispatch decision of ``event`` on ``facts`` (see ``lanes``).

    Raises ``ValueError`` for an event no lane handles."""
    return decide_dispatch(
        event,
        pr=facts.pr,
        labels=facts.labels,
        gate=facts.gate,
        activation=activation_of(event, facts.pr),
        active_runs=facts.active_runs,
        policy=policy,
        issue_body=facts.issue_body,
        rounds=facts.rounds,
    )


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


def facts_document(event: Event, facts: Facts, policy: Policy) -> dict[str, Any]:
    """``event`` and ``facts`` as a dry-run request (``event``, ``payload``,
    ``state``): what a recorded decision keeps."""
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


def is_facts_document(value: Any) -> bool:
    """Whether a recorded decision's inputs hold a dry-run request."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("event"), str)
        and isinstance(value.get("payload"), Mapping)
        and isinstance(value.get("state"), Mapping)
    )
