"""Dispatch decisions of the webhook service: gather the state from GitHub,
decide with the core, take the lock, record the decision, start the round.

GitHub is never called inside a database transaction: reads happen first,
then one short transaction takes the lock (the round row), then the 🚀
reaction is added outside it, then one transaction records the decision.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q

from prkeepalive.core.instruction import extract_instruction, parse_segments
from prkeepalive.core.lanes import (
    decide_dispatch,
    handed_over_activation,
    lane_for,
    with_lock_held,
)
from prkeepalive.core.markers import parse_markers
from prkeepalive.core.summary import decision_line
from prkeepalive.core.types import (
    LOCK_REACTION,
    Comment,
    DispatchDecision,
    Event,
    GateConclusion,
    Lane,
    Policy,
)
from prkeepalive.core.types import (
    PullRequest as CorePull,
)
from prkeepalive.core.wire import gate_from_run, parse_event
from prkeepalive.github import GitHubClient, PullInfo
from prkeepalive.models import Decision, Delivery, PullRequest, Repository, Round
from prkeepalive.services.config import client_for, policy_for

logger = logging.getLogger(__name__)
ACTIVE_ROUND_STATUSES = (Round.Status.LOCKED, Round.Status.RUNNING)


@dataclass(frozen=True, slots=True)
class Gathered:
    """Everything a decision read, as stored in ``Decision.inputs``."""

    pull: PullInfo | None
    comments: tuple[Comment, ...]
    gate: GateConclusion
    active: int
    activation: Comment | None
    issue_body: str


def is_worker_completion(repository: Repository, event: Event) -> bool:
    return (
        event.name == "workflow_run"
        and event.action == "completed"
        and event.workflow_name.strip().lower()
        == repository.worker_workflow.strip().lower()
    )


def event_is_handled(repository: Repository, event: Event) -> bool:
    return lane_for(event, policy_for(repository)) is not None or is_worker_completion(
        repository, event
    )


def pull_number_of(client: GitHubClient, event: Event) -> int | None:
    """The PR of the event; a fork PR's Gate run is resolved by its head SHA."""
    if event.name == "issue_comment":
        return event.issue_number if event.is_pull_request else None
    if event.pull_numbers:
        return event.pull_numbers[0]
    if event.head_sha:
        numbers = client.pulls_for_commit(event.head_sha)
        return numbers[0] if numbers else None
    return None


def gate_of(client: GitHubClient, policy: Policy, head_sha: str) -> GateConclusion:
    runs = [
        r
        for r in client.list_runs(head_sha=head_sha)
        if r.name.strip().lower() == policy.gate_workflow.strip().lower()
    ]
    if not runs:
        return GateConclusion.PENDING
    latest = max(runs, key=lambda r: (r.created_at, r.id))
    return gate_from_run(latest.status, latest.conclusion)


def linked_issue_body(client: GitHubClient, pull: PullInfo) -> str:
    """The PR body when it has Scope/Tasks/Acceptance, else the body of the
    first issue it references (``#123``)."""
    if not parse_segments(pull.body).is_empty:
        return pull.body
    match = re.search(r"(?<![\w/])#(\d+)\b", pull.body)
    if not match:
        return ""
    return client.get_issue_body(int(match.group(1)))


def gather(
    repository: Repository, client: GitHubClient, event: Event, number: int | None
) -> Gathered:
    policy = policy_for(repository)
    if number is None:
        return Gathered(None, (), GateConclusion.PENDING, 0, None, "")
    pull = client.get_pull(number)
    comments = tuple(client.list_comments(number))
    by_id = {c.id: c for c in comments}
    lane = lane_for(event, policy)
    if lane is Lane.COMMENT:
        gate = gate_of(client, policy, pull.head_sha)
        activation = by_id.get(event.comment.id) if event.comment else None
        activation = activation or event.comment
    else:
        gate = gate_from_run(event.status, event.conclusion)
        handed = handed_over_activation(comments, policy)
        # A Gate run of the head a round already started from (a re-run, or
        # the reconciler re-reading it) does not continue that round. The
        # round is found by its trace too: it stores the instruction's comment
        # id only after posting it and acknowledging it on GitHub, and a Gate
        # delivery decided in between would otherwise start a second round
        # from the same head.
        if handed is not None:
            its_round = Q(instruction_comment_id=handed.id)
            trace = parse_markers(handed.body).trace
            if trace:
                its_round |= Q(pull__number=number, trace=trace)
            if (
                Round.objects.filter(repository=repository, head_before=pull.head_sha)
                .filter(its_round)
                .exists()
            ):
                handed = None
        activation = by_id.get(event.activation_comment_id or -1) or handed
    active = Round.objects.filter(
        repository=repository, pull__number=number, status__in=ACTIVE_ROUND_STATUSES
    ).count()
    return Gathered(
        pull, comments, gate, active, activation, linked_issue_body(client, pull)
    )


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


def _inputs(event: Event, g: Gathered, decision: DispatchDecision) -> dict[str, Any]:
    instruction = ""
    if g.activation is not None:
        instruction = extract_instruction(g.activation.body, g.issue_body)
    if decision.ok and not instruction:
        instruction = extract_instruction(g.issue_body)
    return {
        "event": {"name": event.name, "action": event.action},
        "labels": list(g.pull.labels) if g.pull else [],
        "gate": g.gate.value,
        "activeRuns": g.active,
        "headSha": g.pull.head_sha if g.pull else event.head_sha,
        "activation": asdict(g.activation) if g.activation else None,
        "comments": [
            {
                "id": c.id,
                "author": c.author,
                "authorType": c.author_type,
                "body": c.body[:2000],
                "reactions": list(c.reactions),
                "createdAt": c.created_at,
            }
            for c in g.comments[-100:]
        ],
        "issueBody": g.issue_body[:5000],
        "instruction": instruction,
    }


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
        number = pull_number_of(client, event)
        g = gather(repository, client, event, number)
        core_pull = (
            CorePull(
                number=g.pull.number,
                head_sha=g.pull.head_sha,
                comments=g.comments,
                is_fork=g.pull.is_fork,
            )
            if g.pull
            else None
        )
        decision = decide_dispatch(
            event,
            pr=core_pull,
            labels=g.pull.labels if g.pull else (),
            gate=g.gate,
            activation=g.activation,
            active_runs=g.active,
            policy=policy,
            issue_body=g.issue_body,
        )
        row = _pull_row(repository, g.pull)
        if only_if_changed and not decision.ok and row is not None:
            last = row.decisions.order_by("-created_at", "-pk").first()
            if last is not None and last.reason == decision.reason.value:
                return None
        round_row = None
        if decision.ok and row is not None and decision.round is not None:
            round_row, decision = _take_lock(client, repository, row, decision)
    finally:
        if own:
            client.close()
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
            inputs=_inputs(event, g, decision),
            line=line,
        )
        if round_row is not None:
            Round.objects.filter(pk=round_row.pk).update(decision=recorded)
            if decision.ok:
                from prkeepalive.tasks.rounds import start_round as start_round_task

                pk = round_row.pk
                transaction.on_commit(lambda: start_round_task.delay(pk))
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
) -> tuple[Round | None, DispatchDecision]:
    """The database row first (the real lock), then its visible copy."""
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
        return None, with_lock_held(decision)
    status = client.add_reaction(decision.activation_id, LOCK_REACTION)
    if status != 201:
        Round.objects.filter(pk=round_row.pk).update(status=Round.Status.LOCK_HELD)
        return round_row, with_lock_held(decision)
    return round_row, decision


def delivery_process(*, delivery_pk: int) -> str:
    """Process one queued delivery; a no-op unless it is queued or failed
    (the conditional update is the claim, so two workers never both run it).
    Returns the delivery's final status."""
    claimed = Delivery.objects.filter(
        pk=delivery_pk, status__in=(Delivery.Status.QUEUED, Delivery.Status.FAILED)
    ).update(status=Delivery.Status.PROCESSING, attempts=F("attempts") + 1)
    if not claimed:
        return "skipped"
    delivery = Delivery.objects.select_related("repository").get(pk=delivery_pk)
    repository = delivery.repository
    try:
        assert repository is not None
        event = parse_event(delivery.event, delivery.payload)
        if is_worker_completion(repository, event):
            from prkeepalive.services.rounds import worker_completed

            worker_completed(repository, event)
        else:
            decide_and_record(repository, event, delivery=delivery)
    except Exception as exc:
        Delivery.objects.filter(pk=delivery_pk).update(
            status=Delivery.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        logger.warning(
            "[PRKeepalive] delivery_failed guid=%s error=%s",
            delivery.guid,
            type(exc).__name__,
        )
        raise
    Delivery.objects.filter(pk=delivery_pk).update(
        status=Delivery.Status.HANDLED, error=""
    )
    return Delivery.Status.HANDLED
