"""The lanes of PR-meta and what they share: which lane decides an event
(``route``: the one typed record of a delivered event), why none does, the
round an activation starts, the Gate lane's fallback activation, and the
decision after a lost lock. The rules themselves, in their order, are in
``prkeepalive.core.rules``.

Lane ``comment`` (``issue_comment`` created): a person's ``@agent`` comment
on a PR labelled ``agents:keepalive``.

Lane ``gate`` (``workflow_run`` of Gate, completed): Gate must have concluded
success; the activation is the one handed over by the event or, when empty,
the latest round instruction on the PR (unless its round started from this
very head), else the most recent fresh human ``@agent`` comment.

A ``workflow_run`` of the worker workflow, completed, is no lane's: it
finishes the round its agent ran.

Deterministic: same inputs, same answers; no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prkeepalive.core.labels import is_instruction, latest_human_activation
from prkeepalive.core.markers import parse_markers
from prkeepalive.core.types import (
    Comment,
    DispatchDecision,
    Event,
    Lane,
    Policy,
    PullRequest,
    Reason,
    RecordedRound,
)

HANDLED_COMMENT_ACTIONS = ("created", "edited", "deleted")


def lane_for(event: Event, policy: Policy) -> Lane | None:
    """The lane that decides ``event``, or ``None`` when no lane handles it."""
    if event.name == "issue_comment" and event.action in HANDLED_COMMENT_ACTIONS:
        return Lane.COMMENT
    if (
        event.name == "workflow_run"
        and event.action == "completed"
        and event.workflow_name.strip().lower() == policy.gate_workflow.strip().lower()
    ):
        return Lane.GATE
    return None


def unhandled_reason(event: Event, policy: Policy) -> str:
    """Why no lane handles ``event`` (for the webhook's 202 answer)."""
    if event.name == "issue_comment":
        return f"issue_comment action {event.action or '(none)'} is not handled"
    if event.name == "workflow_run":
        if event.action != "completed":
            return f"workflow_run action {event.action or '(none)'} is not handled"
        return (
            f"workflow {event.workflow_name or '(unnamed)'} is not the Gate "
            f"workflow ({policy.gate_workflow})"
        )
    return f"event {event.name or '(none)'} is not handled"


def is_worker_completion(event: Event, worker_workflow: str) -> bool:
    """A completed run of the worker workflow: the agent of a round finished."""
    return (
        event.name == "workflow_run"
        and event.action == "completed"
        and event.workflow_name.strip().lower() == worker_workflow.strip().lower()
    )


@dataclass(frozen=True, slots=True)
class Route:
    """A delivered event, classified once: the lane that decides it, or a
    worker completion, or why nothing handles it (``ignored``)."""

    event: Event
    lane: Lane | None
    worker_completion: bool
    ignored: str

    @property
    def handled(self) -> bool:
        return not self.ignored


def route(event: Event, policy: Policy, worker_workflow: str) -> Route:
    """Where ``event`` goes: a lane, a worker completion (which the worker
    handles first, should the Gate and the worker workflow share a name), or
    nowhere."""
    lane = lane_for(event, policy)
    worker = is_worker_completion(event, worker_workflow)
    ignored = "" if lane is not None or worker else unhandled_reason(event, policy)
    return Route(event, lane, worker, ignored)


def next_round(
    pr: PullRequest | None,
    activation: Comment,
    rounds: Sequence[RecordedRound] = (),
) -> int:
    """One more than the highest round seen up to the activation (1 for the
    first): round markers of comments older than it (ids grow with time), its
    own, and rounds recorded for older activations. So an activation always
    maps to the same round — the pair is the dispatch lock's key — and a
    round that failed before posting its instruction still uses its number."""
    older = [c for c in (pr.comments if pr else ()) if c.id < activation.id]
    known = [parse_markers(c.body).round for c in older]
    known.append(parse_markers(activation.body).round)
    known += [r.number for r in rounds if r.activation_id < activation.id]
    numbers = [n for n in known if n is not None]
    return max(numbers) + 1 if numbers else 1


def started_from(
    instruction: Comment, head_sha: str, rounds: Sequence[RecordedRound]
) -> RecordedRound | None:
    """The recorded round that posted ``instruction`` (by comment id, or by
    the trace it carries: the id is stored only after posting) when it
    started from ``head_sha``: a Gate run of that head (a re-run, or the
    reconciler re-reading it) does not continue that round."""
    if not head_sha:
        return None
    trace = parse_markers(instruction.body).trace
    for r in rounds:
        if r.head_before == head_sha and (
            r.instruction_id == instruction.id or (trace and r.trace == trace)
        ):
            return r
    return None


def gate_activation(
    pr: PullRequest, policy: Policy, rounds: Sequence[RecordedRound] = ()
) -> tuple[Comment | None, RecordedRound | None]:
    """The activation a Gate run continues from when none was handed over:
    the latest round instruction (trusted account, round and trace markers);
    without one, the most recent fresh human activation. The second value is
    the recorded round that already started from this head with that
    instruction (no activation then)."""
    instructions = [c for c in pr.comments if is_instruction(c, policy)]
    if not instructions:
        return latest_human_activation(pr.comments, policy), None
    latest = max(instructions, key=lambda c: c.id)
    started = started_from(latest, pr.head_sha, rounds)
    if started is not None:
        return None, started
    return latest, None


def with_lock_held(decision: DispatchDecision) -> DispatchDecision:
    """The decision after the caller found the lock taken (a concurrent
    delivery won the race, or GitHub answered 200/409 for the reaction)."""
    return DispatchDecision(
        ok=False,
        lane=decision.lane,
        reason=Reason.LOCK_HELD,
        pr_number=decision.pr_number,
        activation_id=decision.activation_id,
        agent=decision.agent,
        head_sha=decision.head_sha,
        cap=decision.cap,
        active=decision.active,
        trace="",
        round=None,
        detail="another delivery already took the lock on this activation",
    )
