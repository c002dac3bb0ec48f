"""The facts a dispatch decision reads, and the one function that decides on
them.

Whoever gathers the facts — the webhook service and the reconciler (from
GitHub and the recorded rounds), the Actions command (from GitHub), a person
in the dry run (pasted) — hands them to :func:`decide`, so the same facts
always give the same decision. ``prkeepalive.core.inputs`` holds the
event, the facts and the policy as one record and writes them in the dry
run's request form.
"""

from __future__ import annotations

from dataclasses import dataclass

from prkeepalive.core.lanes import with_lock_held
from prkeepalive.core.rules import decide_dispatch
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
    """The dispatch decision of ``event`` on ``facts`` (see ``rules``).

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


def decide_lock_lost(event: Event, facts: Facts, policy: Policy) -> DispatchDecision:
    """The decision once the lock was found taken: what the lock attempt
    learned (the round another delivery recorded, or the one kept for the 🚀
    already on the activation) is in ``facts.rounds``; a decision that would
    still dispatch reads lock-held."""
    decision = decide(event, facts, policy)
    return with_lock_held(decision) if decision.ok else decision
