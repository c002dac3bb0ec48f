"""Dispatch decisions of the webhook service: gather the facts from GitHub
and the database, decide with the core, take the lock, record the decision,
start the round.

The walk of a delivery: ``delivery_process`` parses the stored event once
and routes it (``prkeepalive.core.lanes.route``); ``decide_and_record``
gathers the facts (``gather``: reads only, every rule about what to read is
in ``prkeepalive.core.reading``), hands them to
``prkeepalive.core.facts.decide`` and records what it decided with its
inputs (``prkeepalive.core.inputs``).

GitHub is never called inside a database transaction: reads happen first,
then one short transaction takes the lock (the round row), then the 🚀
reaction is added outside it, then one transaction records the decision.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from evalsite.dispatch import enqueue
from prkeepalive.core.facts import Facts, decide, decide_lock_lost, pull_number
from prkeepalive.core.inputs import (
    DecisionInputs,
    recorded_to_wire,
    round_instruction,
)
from prkeepalive.core.lanes import Route, lane_for, route
from prkeepalive.core.reading import (
    gate_of_event,
    gate_of_runs,
    has_own_instruction,
    instruction_issue,
    needs_head_commit_pulls,
    worth_recording,
)
from prkeepalive.core.summary import decision_line
from prkeepalive.core.types import (
    LOCK_REACTION,
    DispatchDecision,
    Event,
    GateConclusion,
    Lane,
    Policy,
    RecordedRound,
)
from prkeepalive.core.types import (
    PullRequest as CorePull,
)
from prkeepalive.core.wire import parse_event
from prkeepalive.github import GitHubClient, PullInfo
from prkeepalive.models import Decision, Delivery, PullRequest, Repository, Round
from prkeepalive.services.config import client_for, policy_for
from prkeepalive.services.rounds import worker_completed

logger = logging.getLogger(__name__)
ACTIVE_ROUND_STATUSES = (Round.Status.LOCKED, Round.Status.RUNNING)


def event_route(repository: Repository, event: Event) -> Route:
    """Where ``event`` goes for ``repository`` (its policy and worker
    workflow)."""
    return route(event, policy_for(repository), repository.worker_workflow)


def head_commit_pulls(client: GitHubClient, event: Event) -> tuple[int, ...]:
    """For a Gate run that names no PR (a fork PR's): the PRs of its head
    commit."""
    if not needs_head_commit_pulls(event):
        return ()
    return tuple(client.pulls_for_commit(event.head_sha))


def gate_of(client: GitHubClient, policy: Policy, head_sha: str) -> GateConclusion:
    """Gate on ``head_sha``: its latest Gate run's conclusion."""
    return gate_of_runs(client.list_runs(head_sha=head_sha), policy.gate_workflow)


def linked_issue_body(client: GitHubClient, pull: PullInfo) -> str:
    """The PR body when it has Scope/Tasks/Acceptance, else the body of the
    first issue it references (``#123``)."""
    if has_own_instruction(pull.body):
        return pull.body
    number = instruction_issue(pull.body)
    return client.get_issue_body(number) if number is not None else ""


def recorded_rounds(repository: Repository, number: int) -> tuple[RecordedRound, ...]:
    rows = Round.objects.filter(repository=repository, pull__number=number).order_by(
        "number", "pk"
    )
    return tuple(
        RecordedRound(
            number=r.number,
            trace=r.trace,
            activation_id=r.activation_comment_id,
            instruction_id=r.instruction_comment_id,
            head_before=r.head_before,
        )
        for r in rows
    )


def read_pull(
    client: GitHubClient, event: Event, lane: Lane | None, policy: Policy
) -> tuple[Facts, PullInfo | None]:
    """What GitHub tells about the event's PR: the PR with its comments and
    labels, Gate on its head, the instruction's issue text, a fork PR's
    head-commit PRs. Reads only: what to read is
    ``prkeepalive.core.reading``'s."""
    commit_pulls = head_commit_pulls(client, event)
    number = pull_number(event, commit_pulls)
    if number is None:
        return Facts(pr=None, head_commit_pulls=commit_pulls), None
    pull = client.get_pull(number)
    comments = tuple(client.list_comments(number))
    gate = gate_of_event(event, lane)
    if gate is None:
        gate = gate_of(client, policy, pull.head_sha)
    facts = Facts(
        pr=CorePull(
            number=pull.number,
            head_sha=pull.head_sha,
            comments=comments,
            is_fork=pull.is_fork,
        ),
        labels=pull.labels,
        gate=gate,
        issue_body=linked_issue_body(client, pull),
        head_commit_pulls=commit_pulls,
    )
    return facts, pull


def gather(
    repository: Repository,
    client: GitHubClient,
    event: Event,
    lane: Lane | None,
    policy: Policy,
) -> tuple[Facts, PullInfo | None]:
    """Everything the decision reads: GitHub first (``read_pull``), then
    the recorded rounds and active rounds of the PR (no transaction is open
    while GitHub is called)."""
    facts, pull = read_pull(client, event, lane, policy)
    if pull is None:
        return facts, None
    active = Round.objects.filter(
        repository=repository,
        pull__number=pull.number,
        status__in=ACTIVE_ROUND_STATUSES,
    ).count()
    rounds = recorded_rounds(repository, pull.number)
    return replace(facts, active_runs=active, rounds=rounds), pull


def _pull_row(repository: Repository, pull: PullInfo | None) -> PullRequest | None:
    if pull is None:
        return None
    row, _ = PullRequest.objects.update_or_create(
        repository=repository,
        number=pull.number,
        defaults={
            "title": pull.title[:300],
            "head_sha": pull.head_sha,
            "labels": list(pull.labels),
            "is_open": pull.is_open,
        },
    )
    return row


def decide_and_record(
    repository: Repository,
    event: Event,
    *,
    delivery: Delivery | None = None,
    source: str = Decision.Source.WEBHOOK,
    client: GitHubClient | None = None,
    only_if_changed: bool = False,
) -> Decision | None:
    """Decide one event for its PR, take the lock when ok, record it.

    Returns the recorded decision (``None`` when ``only_if_changed`` and the
    reason equals the PR's last one). Schedules ``prkeepalive.start_round``
    after commit when a round was dispatched.
    """
    policy = policy_for(repository)
    own = client is None
    client = client or client_for(repository)
    try:
        facts, pull = gather(repository, client, event, lane_for(event, policy), policy)
        decision = decide(event, facts, policy)
        row = _pull_row(repository, pull)
        if only_if_changed and row is not None:
            last = row.decisions.order_by("-created_at", "-pk").first()
            if not worth_recording(decision, last.reason if last else None):
                return None
        round_row = None
        if decision.ok and row is not None and decision.round is not None:
            round_row, won = _take_lock(client, repository, row, decision)
            if not won:
                # What the lock attempt learned is a fact like any other.
                facts = replace(facts, rounds=recorded_rounds(repository, row.number))
                decision = decide_lock_lost(event, facts, policy)
    finally:
        if own:
            client.close()
    inputs = DecisionInputs(event, facts, policy)
    line = decision_line(decision)
    with transaction.atomic():
        recorded = Decision.objects.create(
            pull=row,
            repository=repository,
            delivery=delivery,
            source=source,
            lane=decision.lane.value,
            ok=decision.ok,
            reason=decision.reason.value,
            detail=decision.detail[:400],
            activation_comment_id=decision.activation_id,
            agent=decision.agent,
            head_sha=decision.head_sha,
            cap=decision.cap,
            active=decision.active,
            trace=decision.trace,
            inputs=recorded_to_wire(inputs, round_instruction(inputs, decision)),
            line=line,
        )
        if round_row is not None:
            Round.objects.filter(pk=round_row.pk).update(decision=recorded)
            if decision.ok:
                pk = round_row.pk
                transaction.on_commit(lambda: enqueue("prkeepalive.start_round", pk))
    logger.info(
        "[PRKeepalive] %s",
        line,
        extra={"trace": decision.trace, "reason": decision.reason.value},
    )
    return recorded


def _take_lock(
    client: GitHubClient,
    repository: Repository,
    row: PullRequest,
    decision: DispatchDecision,
) -> tuple[Round | None, bool]:
    """The database row first (the real lock), then its visible copy;
    (the round row, whether this delivery won the lock)."""
    assert decision.activation_id is not None
    assert decision.round is not None
    try:
        with transaction.atomic():
            round_row = Round.objects.create(
                repository=repository,
                pull=row,
                activation_comment_id=decision.activation_id,
                number=decision.round,
                trace=decision.trace,
                agent=decision.agent,
                head_before=decision.head_sha,
            )
    except IntegrityError:
        return None, False
    status = client.add_reaction(decision.activation_id, LOCK_REACTION)
    if status != 201:
        Round.objects.filter(pk=round_row.pk).update(status=Round.Status.LOCK_HELD)
        return round_row, False
    return round_row, True


CLAIMABLE = (
    Delivery.Status.QUEUED,
    Delivery.Status.RETRYING,
    Delivery.Status.FAILED,
)


def delivery_process(*, delivery_pk: int) -> str:
    """Process one queued delivery; a no-op unless it is queued, retrying or
    failed (the conditional update is the claim, so two workers never both
    run it). Returns the delivery's final status.

    A delivery whose repository is gone or paused is ignored without asking
    GitHub anything. A failure is recorded on the delivery (``failed``, with
    what failed) and on the PR's page before it is raised for the retry."""
    claimed = Delivery.objects.filter(pk=delivery_pk, status__in=CLAIMABLE).update(
        status=Delivery.Status.PROCESSING, attempts=F("attempts") + 1, retry_at=None
    )
    if not claimed:
        return "skipped"
    delivery = Delivery.objects.select_related("repository").get(pk=delivery_pk)
    repository = delivery.repository
    if repository is None or not repository.is_active:
        reason = (
            "the repository is no longer registered for keepalive"
            if repository is None
            else f"{repository.full_name} is paused (not active)"
        )
        Delivery.objects.filter(pk=delivery_pk).update(
            status=Delivery.Status.IGNORED, reason=reason
        )
        return Delivery.Status.IGNORED
    try:
        routed = event_route(repository, parse_event(delivery.event, delivery.payload))
        if routed.worker_completion:
            worker_completed(repository, routed.event)
        else:
            decide_and_record(repository, routed.event, delivery=delivery)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:2000]
        Delivery.objects.filter(pk=delivery_pk).update(
            status=Delivery.Status.FAILED, error=error
        )
        if delivery.pull_number is not None:
            # The PR's page is where people look: it exists from now on.
            PullRequest.objects.get_or_create(
                repository=repository, number=delivery.pull_number
            )
        logger.warning(
            "[PRKeepalive] delivery_failed guid=%s attempt=%s error=%s",
            delivery.guid,
            delivery.attempts,
            error,
        )
        raise
    Delivery.objects.filter(pk=delivery_pk).update(
        status=Delivery.Status.HANDLED, error=""
    )
    return Delivery.Status.HANDLED


# The retries of a failed delivery and the worker's log lines about them,
# under the task's logger as they always were.
DELIVERY_RETRIES = 3
retry_logger = logging.getLogger("prkeepalive.tasks.deliveries")


class RetryDelivery(Exception):
    """The delivery failed and is tried again in ``countdown_s`` (the
    worker schedules it; the failure is the ``__cause__``)."""

    def __init__(self, countdown_s: float) -> None:
        super().__init__(f"retry in {countdown_s:g} s")
        self.countdown_s = countdown_s


def delivery_attempt(*, delivery_pk: int, retries: int, may_retry: bool) -> str:
    """The worker's attempt at one delivery (``delivery_process``). After a
    failure with retries left (``retries`` done so far, ``may_retry``
    false in eager mode) the delivery reads ``retrying`` and
    ``RetryDelivery`` is raised with the backoff; after the last one it
    stays ``failed`` (a redelivery from GitHub retries it): ``failed``."""
    try:
        return delivery_process(delivery_pk=delivery_pk)
    except Exception as exc:
        if retries < DELIVERY_RETRIES and may_retry:
            countdown = 5 * 2**retries
            delivery_will_retry(delivery_pk=delivery_pk, countdown_s=countdown)
            retry_logger.warning(
                "[PRKeepalive] delivery_retry pk=%s error=%s",
                delivery_pk,
                type(exc).__name__,
            )
            raise RetryDelivery(countdown) from exc
        retry_logger.exception("[PRKeepalive] delivery_gave_up pk=%s", delivery_pk)
        return "failed"


def delivery_will_retry(*, delivery_pk: int, countdown_s: float) -> None:
    """The worker tries a failed delivery again in ``countdown_s``."""
    Delivery.objects.filter(pk=delivery_pk, status=Delivery.Status.FAILED).update(
        status=Delivery.Status.RETRYING,
        retry_at=timezone.now() + timedelta(seconds=countdown_s),
    )
