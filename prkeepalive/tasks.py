"""Celery tasks of PR keepalive: ids in, one service call each, safe to
retry (every service claims its row with a conditional update first)."""

from __future__ import annotations

import logging

from celery import Task, shared_task

logger = logging.getLogger(__name__)


@shared_task(
    name="prkeepalive.process_delivery", bind=True, max_retries=3, acks_late=True
)
def process_delivery(self: Task, delivery_pk: int) -> str:
    """Decide one webhook delivery; a failure is retried with backoff, then
    the delivery stays ``failed`` (a redelivery from GitHub retries it)."""
    from prkeepalive.services.dispatch import delivery_process

    try:
        return delivery_process(delivery_pk=delivery_pk)
    except Exception as exc:
        if self.request.retries < 3 and not self.request.is_eager:
            logger.warning(
                "[PRKeepalive] delivery_retry pk=%s error=%s",
                delivery_pk,
                type(exc).__name__,
            )
            raise self.retry(exc=exc, countdown=5 * 2**self.request.retries) from exc
        logger.exception("[PRKeepalive] delivery_gave_up pk=%s", delivery_pk)
        return "failed"


@shared_task(name="prkeepalive.start_round", acks_late=True)
def start_round(round_pk: int) -> str:
    """Post the round's instruction and start its agent."""
    from prkeepalive.services.rounds import round_start

    try:
        return round_start(round_pk=round_pk)
    except Exception:
        logger.exception("[PRKeepalive] round_start_failed pk=%s", round_pk)
        from prkeepalive.models import Round

        Round.objects.filter(pk=round_pk, status=Round.Status.LOCKED).update(
            status=Round.Status.FAILED, error="the instruction could not be posted"
        )
        return "failed"


@shared_task(name="prkeepalive.reconcile_all")
def reconcile_all() -> int:
    """Beat: re-read open keepalive PRs of every active repository."""
    from prkeepalive.services.reconcile import reconcile_all as run

    return run()
