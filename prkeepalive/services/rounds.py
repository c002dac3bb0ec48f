"""Orchestrator rounds: post the instruction, acknowledge, run the worker
guard, start the agent; when the agent's workflow completes, run the
branch-sync ladder. Each step stores its summary line on the round.

GitHub calls happen outside transactions; each state change of the round is
one conditional update, so a retried task never posts a second instruction
(``instruction_comment_id`` set means posted).
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db.models import F

from prkeepalive.core.inputs import recorded_instruction
from prkeepalive.core.instruction import render_instruction
from prkeepalive.core.summary import (
    instruction_line,
    sync_line,
    worker_line,
    wrong_author_line,
)
from prkeepalive.core.sync import decide_sync
from prkeepalive.core.types import (
    ACK_REACTION,
    Event,
    LastProcessed,
    SyncAction,
    SyncAttempt,
    WorkerAction,
    WorkerDecision,
    WorkerReason,
)
from prkeepalive.core.worker import decide_worker
from prkeepalive.dispatchers import RoundRequest, dispatcher_for
from prkeepalive.github import GitHubClient
from prkeepalive.models import PullRequest, Repository, Round
from prkeepalive.services.config import client_for, secret

logger = logging.getLogger(__name__)
# A round that fails to start is logged under the task's logger, as it
# always was (the worker's log names it so).
start_logger = logging.getLogger("prkeepalive.tasks.rounds")


def _log(line: str, trace: str) -> None:
    logger.info("[PRKeepalive] %s", line, extra={"trace": trace})


def instruction_token_ref(repository: Repository) -> tuple[str, str]:
    """(token variable to post with, its problem): the author invariant.

    With a person's token configured, the instruction must be posted with
    it; a repository set to post as the bot then fails with wrong-author.
    """
    human_configured = bool(secret(repository.human_token_ref))
    if (
        repository.instruction_token == Repository.InstructionToken.HUMAN
        and human_configured
    ):
        return repository.human_token_ref, ""
    if human_configured:
        return repository.token_ref, "wrong-author"
    return repository.token_ref, ""


def round_start(*, round_pk: int) -> str:
    """Post the instruction, ack it, decide the worker, dispatch the agent.

    Idempotent: a round whose instruction is already posted is left alone.
    Returns the round's status.
    """
    rnd = Round.objects.select_related("repository", "pull", "decision").get(
        pk=round_pk
    )
    if rnd.status != Round.Status.LOCKED or rnd.instruction_comment_id:
        return rnd.status
    repository, pull = rnd.repository, rnd.pull
    token_ref, problem = instruction_token_ref(repository)
    if problem:
        # Every step still prints its line: the worker is blocked by the
        # author policy and there is nothing to sync.
        lines = (
            wrong_author_line(token=token_ref, head=rnd.head_before, trace=rnd.trace),
            worker_line(
                WorkerDecision(
                    action=WorkerAction.SKIP,
                    reason=WorkerReason.BLOCKED,
                    pr_number=rnd.pull.number,
                    head_sha=rnd.head_before,
                    instruction_id=None,
                    trace=rnd.trace,
                    detail="the instruction was not posted (wrong-author)",
                )
            ),
            sync_line(
                decide_sync(
                    worker_done=False,
                    head_before=rnd.head_before,
                    head_after=rnd.head_before,
                    attempts=(),
                    trace=rnd.trace,
                )
            ),
        )
        Round.objects.filter(pk=rnd.pk).update(
            status=Round.Status.FAILED,
            instruction_line=lines[0],
            worker_line=lines[1],
            sync_line=lines[2],
            error="wrong-author",
        )
        for line in lines:
            _log(line, rnd.trace)
        return Round.Status.FAILED
    segments = recorded_instruction(rnd.decision.inputs) if rnd.decision else ""
    body = render_instruction(
        round=rnd.number,
        trace=rnd.trace,
        agent=rnd.agent,
        segments=segments,
        execution_info=(
            f"pr=#{pull.number} head={rnd.head_before[:7]} round={rnd.number}"
        ),
    )
    with client_for(repository, token_ref=token_ref) as poster:
        comment_id, author = poster.create_comment(pull.number, body)
        ack = poster.add_reaction(comment_id, ACK_REACTION) in (200, 201)
    Round.objects.filter(pk=rnd.pk).update(
        instruction_comment_id=comment_id,
        instruction_author=author,
        instruction_line=instruction_line(
            ok=True,
            author=author,
            comment=comment_id,
            ack=ack,
            head=rnd.head_before,
            trace=rnd.trace,
        ),
    )
    rnd.refresh_from_db()
    _log(rnd.instruction_line, rnd.trace)
    others = (
        Round.objects.filter(
            pull=pull, status__in=(Round.Status.LOCKED, Round.Status.RUNNING)
        )
        .exclude(pk=rnd.pk)
        .count()
    )
    worker = decide_worker(
        pr_number=pull.number,
        head_sha=rnd.head_before,
        latest_instruction_id=comment_id,
        last_processed=LastProcessed(
            pull.last_processed_instruction_id, pull.last_processed_head_sha
        ),
        labels=pull.labels,
        other_active_runs=others,
        trace=rnd.trace,
    )
    wline = worker_line(worker)
    _log(wline, rnd.trace)
    if worker.action is WorkerAction.SKIP:
        sline = sync_line(
            decide_sync(
                worker_done=False,
                head_before=rnd.head_before,
                head_after=rnd.head_before,
                attempts=(),
                trace=rnd.trace,
            )
        )
        Round.objects.filter(pk=rnd.pk).update(
            status=Round.Status.SKIPPED,
            worker_line=wline,
            sync_line=sline,
            head_after=rnd.head_before,
        )
        _log(sline, rnd.trace)
        return Round.Status.SKIPPED
    with client_for(repository) as client:
        dispatcher_for(repository).dispatch(
            client,
            RoundRequest(pull.number, rnd.number, rnd.trace, rnd.agent, comment_id),
        )
    PullRequest.objects.filter(pk=pull.pk).update(
        last_processed_instruction_id=comment_id,
        last_processed_head_sha=rnd.head_before,
    )
    Round.objects.filter(pk=rnd.pk).update(
        status=Round.Status.RUNNING, worker_line=wline
    )
    return Round.Status.RUNNING


def round_start_or_fail(*, round_pk: int) -> str:
    """The worker's start of a round: ``round_start``; a round that fails
    before its agent starts is marked failed (never retried: a second post
    would be a second instruction). Returns the round's status, ``failed``
    after a failure."""
    try:
        return round_start(round_pk=round_pk)
    except Exception:
        start_logger.exception("[PRKeepalive] round_start_failed pk=%s", round_pk)
        Round.objects.filter(pk=round_pk, status=Round.Status.LOCKED).update(
            status=Round.Status.FAILED, error="the instruction could not be posted"
        )
        return "failed"


def _poll_head(client: GitHubClient, number: int, before: str) -> str:
    head = before
    for attempt in range(settings.PRKEEPALIVE_HEAD_POLL_ATTEMPTS):
        head = client.get_pull(number).head_sha
        if head != before:
            return head
        if attempt + 1 < settings.PRKEEPALIVE_HEAD_POLL_ATTEMPTS:
            time.sleep(settings.PRKEEPALIVE_HEAD_POLL_INTERVAL_S)
    return head


def output_branch(rnd: Round) -> str:
    """Where the agent pushes its output when it cannot push to the PR."""
    return f"{rnd.agent or 'agent'}/{rnd.trace}"


def run_sync_ladder(
    client: GitHubClient,
    *,
    number: int,
    head_before: str,
    trace: str,
    worker_done: bool,
    base_ref: str,
    output_branch: str,
) -> tuple[str, str, bool]:
    """Run the ladder against GitHub; returns (SYNC line, head after,
    escalated)."""
    head_now = client.get_pull(number).head_sha
    attempts: list[SyncAttempt] = []
    decision = decide_sync(
        worker_done=worker_done,
        head_before=head_before,
        head_after=head_now,
        attempts=attempts,
        trace=trace,
    )
    while not decision.is_final:
        step = decision.next_action
        moved = False
        if step is SyncAction.UPDATE_BRANCH:
            if client.update_branch(number, head_now):
                head_now = _poll_head(client, number, head_before)
                moved = head_now != head_before
        elif step is SyncAction.CREATE_PR:
            created = client.create_pull(
                head=output_branch,
                base=base_ref,
                title=f"Keepalive output ({trace})",
                body=f"Lands the agent's output of {trace} into #{number}.",
            )
            if created is not None and client.merge_pull(created):
                head_now = _poll_head(client, number, head_before)
                moved = head_now != head_before
        assert step is not None
        attempts.append(SyncAttempt(step, moved))
        decision = decide_sync(
            worker_done=worker_done,
            head_before=head_before,
            head_after=head_before,
            attempts=attempts,
            trace=trace,
        )
    if decision.add_labels:
        client.add_labels(number, list(decision.add_labels))
    return sync_line(decision), head_now, decision.action is SyncAction.ESCALATE


def round_finish(*, round_pk: int, worker_done: bool) -> str:
    """Branch sync for a running round whose agent finished; idempotent
    (only a running round is finished, claimed by a conditional update)."""
    claimed = Round.objects.filter(pk=round_pk, status=Round.Status.RUNNING).update(
        status=Round.Status.DONE, updated_at=F("updated_at")
    )
    if not claimed:
        return "skipped"
    rnd = Round.objects.select_related("repository", "pull").get(pk=round_pk)
    with client_for(rnd.repository) as client:
        pull = client.get_pull(rnd.pull.number)
        line, head_after, _ = run_sync_ladder(
            client,
            number=rnd.pull.number,
            head_before=rnd.head_before,
            trace=rnd.trace,
            worker_done=worker_done,
            base_ref=pull.head_ref,
            output_branch=output_branch(rnd),
        )
    Round.objects.filter(pk=rnd.pk).update(sync_line=line, head_after=head_after)
    _log(line, rnd.trace)
    return Round.Status.DONE


def worker_completed(repository: Repository, event: Event) -> None:
    """The agent's workflow run completed: finish its running round.

    A ``workflow_dispatch`` run names no PR and runs on the dispatch ref, so
    the worker workflow puts the trace in its run name
    (``run-name: keepalive ${{ inputs.trace }}``); without it the round is
    found by the run's PR, else by the head it started from.
    """
    running = Round.objects.filter(repository=repository, status=Round.Status.RUNNING)
    words = set(event.display_title.split())
    rounds = running.filter(trace__in=words) if words else running.none()
    if not rounds.exists():
        numbers = list(event.pull_numbers)
        rounds = (
            running.filter(pull__number__in=numbers)
            if numbers
            else running.filter(head_before=event.head_sha)
        )
    for pk in rounds.order_by("created_at").values_list("pk", flat=True)[:1]:
        round_finish(round_pk=pk, worker_done=event.conclusion == "success")
