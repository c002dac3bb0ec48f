"""The periodic reconciler: webhooks get lost, so every few minutes the open
PRs labelled ``agents:keepalive`` are re-read and decided as a Gate run of
their head would be. A decision is recorded only when it dispatches or when
its reason differs from the PR's last one, so the timeline shows changes,
not a heartbeat. Deliveries that wait with no message on the queue (stored
while the queue was unreachable, a message the broker lost, a worker that
died while processing) are sent again, rounds locked but never started are
started, and running rounds whose worker run completed unseen are finished.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evalsite.dispatch import enqueue
from prkeepalive.core.labels import has_keepalive_label
from prkeepalive.core.reading import latest_run
from prkeepalive.core.types import Event
from prkeepalive.github import GitHubError
from prkeepalive.models import Decision, Delivery, Repository, Round
from prkeepalive.services.config import client_for, policy_for
from prkeepalive.services.dispatch import decide_and_record
from prkeepalive.services.rounds import round_finish
from prkeepalive.services.sending import sent_again

logger = logging.getLogger(__name__)


def requeue_stale_deliveries() -> int:
    """Send again every delivery that is waiting without a message on the
    queue: stored while the queue was unreachable, queued or retrying past
    ``PRKEEPALIVE_STALE_DELIVERY_S`` (the broker lost the message), or
    processing that long (the worker died). Returns how many were sent."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.PRKEEPALIVE_STALE_DELIVERY_S)
    lost = list(
        Delivery.objects.filter(
            Q(status=Delivery.Status.PROCESSING, updated_at__lt=cutoff)
            | Q(status=Delivery.Status.QUEUED, retry_at__isnull=False)
            | Q(status=Delivery.Status.QUEUED, updated_at__lt=cutoff)
            | Q(status=Delivery.Status.RETRYING, retry_at__lt=cutoff)
        )
        .order_by("received_at", "pk")
        .values_list("pk", "guid", "status")
    )
    sent = 0
    for pk, guid, status in lost:
        if status == Delivery.Status.PROCESSING:
            with transaction.atomic():
                moved = Delivery.objects.filter(
                    pk=pk, status=Delivery.Status.PROCESSING
                ).update(
                    status=Delivery.Status.RETRYING,
                    error="the worker was lost while processing it; queued again",
                    retry_at=now,
                )
            if not moved:
                continue
        if not sent_again(delivery_pk=pk, guid=guid):
            break  # the queue is still unreachable: the next run tries again
        sent += 1
        logger.info("[PRKeepalive] delivery_requeued guid=%s was=%s", guid, status)
    return sent


def reconcile_repository(repository: Repository) -> int:
    """Decide every open keepalive PR of ``repository``; returns how many
    decisions were recorded."""
    policy = policy_for(repository)
    recorded = 0
    with client_for(repository) as client:
        for pull in client.list_open_pulls():
            if not has_keepalive_label(pull.labels):
                continue
            latest = latest_run(
                client.list_runs(head_sha=pull.head_sha),
                policy.gate_workflow,
                completed=True,
            )
            if latest is None:
                continue
            event = Event(
                name="workflow_run",
                action="completed",
                workflow_name=latest.name,
                status=latest.status,
                conclusion=latest.conclusion,
                head_sha=pull.head_sha,
                pull_numbers=(pull.number,),
            )
            decision = decide_and_record(
                repository,
                event,
                source=Decision.Source.RECONCILER,
                client=client,
                only_if_changed=True,
            )
            recorded += decision is not None
    return recorded


def finish_lost_rounds(repository: Repository) -> int:
    """Running rounds whose worker run completed while its webhook was lost
    are finished (branch sync); returns how many."""
    running = list(
        Round.objects.filter(repository=repository, status=Round.Status.RUNNING)
    )
    if not running:
        return 0
    with client_for(repository) as client:
        completed = client.list_runs(status="completed")
    finished = 0
    for rnd in running:
        latest = latest_run(
            (r for r in completed if rnd.trace in r.display_title.split()),
            repository.worker_workflow,
        )
        if latest is not None:
            round_finish(round_pk=rnd.pk, worker_done=latest.conclusion == "success")
            finished += 1
    return finished


def restart_stale_rounds() -> int:
    """Rounds locked but never started (a worker died between the lock and
    the instruction) are started again; the start is idempotent."""
    cutoff = timezone.now() - timedelta(seconds=settings.PRKEEPALIVE_STALE_DELIVERY_S)
    stale = list(
        Round.objects.filter(
            status=Round.Status.LOCKED,
            instruction_comment_id__isnull=True,
            created_at__lt=cutoff,
        ).values_list("pk", flat=True)
    )
    for pk in stale:
        enqueue("prkeepalive.start_round", pk)
    return len(stale)


def reconcile_all() -> int:
    requeue_stale_deliveries()
    restart_stale_rounds()
    total = 0
    for repository in Repository.objects.filter(is_active=True):
        try:
            total += reconcile_repository(repository)
            finish_lost_rounds(repository)
        except GitHubError as exc:
            logger.warning(
                "[PRKeepalive] reconcile_failed repository=%s status=%s error=%s",
                repository.full_name,
                exc.status,
                exc.cause or "unknown",
            )
    return total
