"""The dispatch decision of PR-meta as named rules, applied in order.

Each rule reads the ``Case`` (the event, its lane and the facts) and either
refuses with a ``Refusal`` or lets the next rule speak; the first refusal is
the decision. The order, documented once here and in ``docs/prkeepalive.md``:

Lane ``comment`` (``issue_comment``), its own preconditions:

1. ``comment_is_new`` — only a created comment activates;
2. ``comment_on_pull`` — the comment is on a pull request;
3. ``pull_labelled`` — the PR carries ``agents:keepalive``;
4. ``comment_present`` — the event carries a comment;
5. ``author_may_activate`` — a person's ``@agent`` comment (see ``labels``);
6. ``gate_succeeded`` — Gate succeeded on the head (else gate-pending: the
   Gate lane replays the activation once Gate succeeds).

Lane ``gate`` (``workflow_run`` of Gate, completed), its own preconditions:

1. ``run_succeeded`` — the Gate run concluded success;
2. ``run_has_pull`` — a PR was resolved for it;
3. ``pull_labelled``;
4. ``head_not_started`` — a Gate run of a head a round already started
   from, with the latest instruction, does not continue that round (a
   re-run, or the reconciler re-reading it);
5. ``activation_found`` — the activation handed over, else the latest
   round instruction, else the most recent fresh human ``@agent`` comment.

Then, in both lanes, on the chosen activation (``ACTIVATION_RULES``):
``markers_complete`` (an automation comment must carry round and trace),
``no_lock_reaction`` (a 🚀 on it is the lock), ``no_recorded_lock`` (a
round already recorded for it or under its trace), ``not_sync_required``
(``agents:sync-required``), ``under_cap``, ``instruction_present``.

All of these are read-only; taking the lock is the caller's last step,
after an ``ok`` decision. That differs from the contract's gate lane, which
locks before the cap: a refusal must not burn the activation, or the round
could never run once a slot frees up.

Deterministic: same inputs, same decision; no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from prkeepalive.core.instruction import extract_instruction
from prkeepalive.core.labels import (
    activation_refusal,
    agent_alias,
    has_keepalive_label,
    is_bot,
    normalise_labels,
    run_cap,
)
from prkeepalive.core.lanes import (
    gate_activation,
    lane_for,
    next_round,
    unhandled_reason,
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


@dataclass(frozen=True)
class Case:
    """What the rules read: the event in its lane and the facts.

    ``activation`` is the comment lane's comment, or the activation a Gate
    run handed over (``None``: found from ``pr.comments``). What several
    rules derive from it (the Gate lane's choice, the round and its trace)
    is worked out once, when first read."""

    event: Event
    lane: Lane
    pr: PullRequest | None
    labels: tuple[str, ...]
    gate: GateConclusion
    activation: Comment | None
    active: int
    policy: Policy
    markers: Markers | None
    instruction: str | None
    issue_body: str
    rounds: tuple[RecordedRound, ...]

    @cached_property
    def gate_choice(self) -> tuple[Comment | None, RecordedRound | None]:
        """The Gate lane's activation (the one handed over, else see
        ``lanes.gate_activation``) and the round already started from this
        head with it."""
        if self.activation is not None:
            return self.activation, None
        assert self.pr is not None  # run_has_pull came first
        return gate_activation(self.pr, self.policy, self.rounds)

    @cached_property
    def cap(self) -> int:
        """The PR's run cap (``agents:max-runs:X``)."""
        return run_cap(self.labels)

    @cached_property
    def round_trace(self) -> tuple[int, str]:
        """The round the chosen activation starts and its trace."""
        assert self.pr is not None  # both lanes refuse without a PR
        number = next_round(self.pr, chosen_activation(self), self.rounds)
        return number, make_trace(self.pr.number, number)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A rule that does not hold: the reason, in words, and the activation
    the decision names (``act``; the chosen one for the activation rules)."""

    reason: Reason
    detail: str
    act: Comment | None = None
    fails_job: bool = False


type Rule = Callable[[Case], Refusal | None]
type ActivationRule = Callable[[Case, Comment], Refusal | None]

NOT_LABELLED = "the pull request has no agents:keepalive label"


# -- the comment lane ------------------------------------------------------


def comment_is_new(case: Case) -> Refusal | None:
    if case.event.action == "created":
        return None
    return Refusal(
        Reason.NO_HUMAN_ACTIVATION,
        f"the comment was {case.event.action}; only a new comment activates",
    )


def comment_on_pull(case: Case) -> Refusal | None:
    if case.pr is not None and case.event.is_pull_request:
        return None
    return Refusal(
        Reason.NO_LINKED_PR, "the comment is on an issue, not on a pull request"
    )


def pull_labelled(case: Case) -> Refusal | None:
    if has_keepalive_label(case.labels):
        return None
    return Refusal(Reason.MISSING_LABEL, NOT_LABELLED)


def lane_comment(case: Case) -> Comment | None:
    """The comment lane's activation: the comment as the PR lists it, else
    as the event carried it."""
    return case.activation if case.activation is not None else case.event.comment


def comment_present(case: Case) -> Refusal | None:
    if lane_comment(case) is not None:
        return None
    return Refusal(Reason.NO_HUMAN_ACTIVATION, "the event carries no comment")


def author_may_activate(case: Case) -> Refusal | None:
    comment = lane_comment(case)
    assert comment is not None  # comment_present came first
    comments = case.pr.comments if case.pr is not None else ()
    refusal = activation_refusal(comment, case.policy, comments)
    return None if refusal is None else Refusal(refusal[0], refusal[1])


def gate_succeeded(case: Case) -> Refusal | None:
    if case.gate is GateConclusion.SUCCESS:
        return None
    return Refusal(
        Reason.GATE_PENDING,
        f"Gate has not succeeded on this head yet ({case.gate.value}); the round "
        "runs when Gate succeeds",
        act=lane_comment(case),
    )


COMMENT_LANE_RULES: tuple[Rule, ...] = (
    comment_is_new,
    comment_on_pull,
    pull_labelled,
    comment_present,
    author_may_activate,
    gate_succeeded,
)


# -- the Gate lane ---------------------------------------------------------


def run_succeeded(case: Case) -> Refusal | None:
    if case.event.conclusion.strip().lower() == "success":
        return None
    return Refusal(
        Reason.GATE_FAILED,
        f"Gate concluded {case.event.conclusion or 'without a conclusion'}, "
        "not success",
    )


def run_has_pull(case: Case) -> Refusal | None:
    if case.pr is not None:
        return None
    return Refusal(
        Reason.NO_LINKED_PR,
        "the Gate run names no pull request and none has its head commit",
    )


def head_not_started(case: Case) -> Refusal | None:
    started = case.gate_choice[1]
    if started is None:
        return None
    return Refusal(
        Reason.LOCK_HELD,
        f"round {started.number} ({started.trace}) already started from "
        "this head with the latest instruction; the next round waits for "
        "a new head",
    )


def activation_found(case: Case) -> Refusal | None:
    if case.gate_choice[0] is not None:
        return None
    return Refusal(
        Reason.NO_ACTIVATION_FOUND,
        "no earlier @agent comment by a person was found on the pull request",
    )


GATE_LANE_RULES: tuple[Rule, ...] = (
    run_succeeded,
    run_has_pull,
    pull_labelled,
    head_not_started,
    activation_found,
)


# -- both lanes, on the chosen activation ----------------------------------


def markers_complete(case: Case, chosen: Comment) -> Refusal | None:
    found = case.markers if case.markers is not None else parse_markers(chosen.body)
    if not is_bot(chosen, case.policy) or found.is_complete:
        return None
    return Refusal(
        Reason.MARKERS_MISSING,
        "the activation is an automation comment without its round and trace markers",
    )


def no_lock_reaction(case: Case, chosen: Comment) -> Refusal | None:
    if not any(r.lower() == LOCK_REACTION for r in chosen.reactions):
        return None
    return Refusal(
        Reason.LOCK_HELD,
        "the activation already carries the 🚀 lock: this round was dispatched",
    )


def no_recorded_lock(case: Case, chosen: Comment) -> Refusal | None:
    number, trace = case.round_trace
    for r in case.rounds:
        if r.activation_id == chosen.id and r.number == number:
            return Refusal(
                Reason.LOCK_HELD,
                f"round {r.number} ({r.trace}) was already locked for this activation",
            )
        if r.trace == trace:
            return Refusal(
                Reason.LOCK_HELD,
                f"{trace} was already dispatched from comment {r.activation_id}; "
                "a trace is never used twice",
            )
    return None


def not_sync_required(case: Case, chosen: Comment) -> Refusal | None:
    if SYNC_REQUIRED_LABEL not in normalise_labels(case.labels):
        return None
    return Refusal(
        Reason.BLOCKED,
        "the pull request is labelled agents:sync-required: an earlier "
        "round's output waits for a person to land it; remove the label to "
        "continue",
    )


def under_cap(case: Case, chosen: Comment) -> Refusal | None:
    cap = case.cap
    if case.active < cap:
        return None
    return Refusal(
        Reason.CAP_REACHED,
        f"{case.active} orchestrator run(s) are queued or running and the cap is {cap}",
    )


def instruction_of(case: Case, chosen: Comment) -> str:
    if case.instruction is not None:
        return case.instruction
    return extract_instruction(chosen.body, case.issue_body)


def instruction_present(case: Case, chosen: Comment) -> Refusal | None:
    if instruction_of(case, chosen).strip():
        return None
    return Refusal(
        Reason.INSTRUCTION_EMPTY,
        "no Scope, Tasks or Acceptance Criteria were found in the activation "
        "or the linked issue",
        fails_job=True,
    )


ACTIVATION_RULES: tuple[ActivationRule, ...] = (
    markers_complete,
    no_lock_reaction,
    no_recorded_lock,
    not_sync_required,
    under_cap,
    instruction_present,
)
LANE_RULES: dict[Lane, tuple[Rule, ...]] = {
    Lane.COMMENT: COMMENT_LANE_RULES,
    Lane.GATE: GATE_LANE_RULES,
}


def chosen_activation(case: Case) -> Comment:
    """The activation both lanes continue with once their own rules hold."""
    chosen = lane_comment(case) if case.lane is Lane.COMMENT else case.gate_choice[0]
    assert chosen is not None  # comment_present / activation_found came first
    return chosen


def first_refusal(case: Case) -> tuple[Refusal | None, Comment | None]:
    """The first rule that does not hold (``None``: all hold) and the chosen
    activation (``None`` while a lane's own rule refused)."""
    for rule in LANE_RULES[case.lane]:
        refusal = rule(case)
        if refusal is not None:
            return refusal, None
    chosen = chosen_activation(case)
    for activation_rule in ACTIVATION_RULES:
        refusal = activation_rule(case, chosen)
        if refusal is not None:
            return Refusal(
                refusal.reason, refusal.detail, chosen, refusal.fails_job
            ), chosen
    return None, chosen


def decide_dispatch(
    event: Event,
    *,
    pr: PullRequest | None,
    labels: tuple[str, ...] | list[str],
    gate: GateConclusion,
    activation: Comment | None,
    active_runs: int,
    policy: Policy,
    markers: Markers | None = None,
    instruction: str | None = None,
    issue_body: str = "",
    rounds: tuple[RecordedRound, ...] | list[RecordedRound] = (),
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
    case = Case(
        event=event,
        lane=lane,
        pr=pr,
        labels=tuple(labels),
        gate=gate,
        activation=activation,
        active=max(0, active_runs),
        policy=policy,
        markers=markers,
        instruction=instruction,
        issue_body=issue_body,
        rounds=tuple(rounds),
    )
    refusal, chosen = first_refusal(case)
    if refusal is None:
        assert chosen is not None
        number, trace = case.round_trace
        refusal = Refusal(Reason.OK, "every condition holds", chosen)
    else:
        number, trace = None, ""
    return DispatchDecision(
        ok=refusal.reason is Reason.OK,
        lane=lane,
        reason=refusal.reason,
        pr_number=pr.number if pr else None,
        activation_id=refusal.act.id if refusal.act else None,
        agent=agent_alias(case.labels, policy),
        head_sha=(pr.head_sha if pr and pr.head_sha else "") or event.head_sha,
        cap=case.cap,
        active=case.active,
        trace=trace,
        round=number,
        detail=refusal.detail,
        fails_job=refusal.fails_job,
    )
