"""The dispatch decision of PR-meta, for both lanes.

Lane ``comment`` (``issue_comment`` created): a person's ``@agent`` comment
on a PR labelled ``agents:keepalive``; Gate not yet success -> gate-pending
(the gate lane replays the activation once Gate succeeds).

Lane ``gate`` (``workflow_run`` of Gate, completed): Gate must have concluded
success; the activation is the one handed over by the event or, when empty,
the latest round instruction on the PR (unless its round started from this
very head), else the most recent fresh human ``@agent`` comment.

Order of checks (first unmet condition wins), the same in both lanes after
the lane's own preconditions: label, activation, markers (an instruction
comment as activation must carry round and trace), the lock (a 🚀 on the
activation, or a round already recorded for it or under its trace), the
``agents:sync-required`` block, the run cap, the instruction. All of these
are read-only;
taking the lock is the caller's last step, after an ``ok`` decision. That
differs from the contract's gate lane, which locks before the cap: a refusal
must not burn the activation, or the round could never run once a slot
frees up.

Deterministic: same inputs, same decision; no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from prkeepalive.core.instruction import extract_instruction
from prkeepalive.core.labels import (
    activation_refusal,
    agent_alias,
    has_keepalive_label,
    is_bot,
    is_instruction,
    latest_human_activation,
    normalise_labels,
    run_cap,
)
from prkeepalive.core.markers import make_trace, parse_markers
from prkeepalive.core.types import (
    LOCK_REACTION,
    SYNC_REQUIRED_LABEL,
    Comment,
    DispatchDecision,
    Event,
    GateConclusion,
    Lane,
    Markers,
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


def decide_dispatch(
    event: Event,
    *,
    pr: PullRequest | None,
    labels: Sequence[str],
    gate: GateConclusion,
    activation: Comment | None,
    active_runs: int,
    policy: Policy,
    markers: Markers | None = None,
    instruction: str | None = None,
    issue_body: str = "",
    rounds: Sequence[RecordedRound] = (),
) -> DispatchDecision:
    """Decide whether PR-meta dispatches a round for ``event``.

    ``activation``: for the comment lane the event's comment (defaulted from
    the event); for the gate lane the activation handed over, or ``None`` to
    fall back to ``pr.comments``. ``markers`` default to those parsed from
    the activation; ``instruction`` defaults to the segments extracted from
    the activation body, then ``issue_body``. ``active_runs`` counts
    orchestrator runs of this PR in queued/in_progress; ``rounds`` are the
    rounds already recorded for this PR (the webhook service's locks).

    Raises ``ValueError`` for an event no lane handles (see ``lane_for``).
    """
    lane = lane_for(event, policy)
    if lane is None:
        raise ValueError(unhandled_reason(event, policy))
    agent = agent_alias(labels, policy)
    cap = run_cap(labels)
    active = max(0, active_runs)
    head = (pr.head_sha if pr and pr.head_sha else "") or event.head_sha

    def refuse(
        reason: Reason, detail: str, *, act: Comment | None, fails: bool = False
    ) -> DispatchDecision:
        return DispatchDecision(
            ok=False,
            lane=lane,
            reason=reason,
            pr_number=pr.number if pr else None,
            activation_id=act.id if act else None,
            agent=agent,
            head_sha=head,
            cap=cap,
            active=active,
            trace="",
            round=None,
            detail=detail,
            fails_job=fails,
        )

    if lane is Lane.COMMENT:
        comment = activation if activation is not None else event.comment
        if event.action != "created":
            return refuse(
                Reason.NO_HUMAN_ACTIVATION,
                f"the comment was {event.action}; only a new comment activates",
                act=None,
            )
        if pr is None or not event.is_pull_request:
            return refuse(
                Reason.NO_LINKED_PR,
                "the comment is on an issue, not on a pull request",
                act=None,
            )
        if not has_keepalive_label(labels):
            return refuse(
                Reason.MISSING_LABEL,
                "the pull request has no agents:keepalive label",
                act=None,
            )
        if comment is None:
            return refuse(
                Reason.NO_HUMAN_ACTIVATION, "the event carries no comment", act=None
            )
        refusal = activation_refusal(
            comment, policy, pr.comments if pr is not None else ()
        )
        if refusal is not None:
            return refuse(refusal[0], refusal[1], act=None)
        if gate is not GateConclusion.SUCCESS:
            return refuse(
                Reason.GATE_PENDING,
                f"Gate has not succeeded on this head yet ({gate.value}); the round "
                "runs when Gate succeeds",
                act=comment,
            )
        chosen = comment
    else:
        if event.conclusion.strip().lower() != "success":
            return refuse(
                Reason.GATE_FAILED,
                f"Gate concluded {event.conclusion or 'without a conclusion'}, "
                "not success",
                act=None,
            )
        if pr is None:
            return refuse(
                Reason.NO_LINKED_PR,
                "the Gate run names no pull request and none has its head commit",
                act=None,
            )
        if not has_keepalive_label(labels):
            return refuse(
                Reason.MISSING_LABEL,
                "the pull request has no agents:keepalive label",
                act=None,
            )
        started: RecordedRound | None = None
        chosen_or_none = activation
        if chosen_or_none is None:
            chosen_or_none, started = gate_activation(pr, policy, rounds)
        if started is not None:
            return refuse(
                Reason.LOCK_HELD,
                f"round {started.number} ({started.trace}) already started from "
                "this head with the latest instruction; the next round waits for "
                "a new head",
                act=None,
            )
        if chosen_or_none is None:
            return refuse(
                Reason.NO_ACTIVATION_FOUND,
                "no earlier @agent comment by a person was found on the pull request",
                act=None,
            )
        chosen = chosen_or_none

    found = markers if markers is not None else parse_markers(chosen.body)
    if is_bot(chosen, policy) and not found.is_complete:
        return refuse(
            Reason.MARKERS_MISSING,
            "the activation is an automation comment without its round and trace "
            "markers",
            act=chosen,
        )
    if any(r.lower() == LOCK_REACTION for r in chosen.reactions):
        return refuse(
            Reason.LOCK_HELD,
            "the activation already carries the 🚀 lock: this round was dispatched",
            act=chosen,
        )
    assert pr is not None  # both lanes returned above without a PR
    round_number = next_round(pr, chosen, rounds)
    trace = make_trace(pr.number, round_number)
    for r in rounds:
        if r.activation_id == chosen.id and r.number == round_number:
            return refuse(
                Reason.LOCK_HELD,
                f"round {r.number} ({r.trace}) was already locked for this activation",
                act=chosen,
            )
        if r.trace == trace:
            return refuse(
                Reason.LOCK_HELD,
                f"{trace} was already dispatched from comment {r.activation_id}; "
                "a trace is never used twice",
                act=chosen,
            )
    if SYNC_REQUIRED_LABEL in normalise_labels(labels):
        return refuse(
            Reason.BLOCKED,
            "the pull request is labelled agents:sync-required: an earlier "
            "round's output waits for a person to land it; remove the label to "
            "continue",
            act=chosen,
        )
    if active >= cap:
        return refuse(
            Reason.CAP_REACHED,
            f"{active} orchestrator run(s) are queued or running and the cap is {cap}",
            act=chosen,
        )
    text = (
        instruction
        if instruction is not None
        else extract_instruction(chosen.body, issue_body)
    )
    if not text.strip():
        return refuse(
            Reason.INSTRUCTION_EMPTY,
            "no Scope, Tasks or Acceptance Criteria were found in the activation "
            "or the linked issue",
            act=chosen,
            fails=True,
        )
    return DispatchDecision(
        ok=True,
        lane=lane,
        reason=Reason.OK,
        pr_number=pr.number,
        activation_id=chosen.id,
        agent=agent,
        head_sha=head,
        cap=cap,
        active=active,
        trace=trace,
        round=round_number,
        detail="every condition holds",
    )


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
