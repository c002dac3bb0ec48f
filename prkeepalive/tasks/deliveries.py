"""Celery tasks of webhook deliveries and the periodic reconciler."""

from __future__ import annotations

import logging

from celery import Task, shared_task

from prkeepalive.services import reconcile
from prkeepalive.services.dispatch import delivery_process, delivery_will_retry

logger = logging.getLogger(__name__)


@shared_task(
    name="prkeepalive.process_delivery", bind=True, max_retries=3, acks_late=True
)
def process_delivery(self: Task, delivery_pk: int) -> str:
    """Decide one webhook delivery; a failure is retried with backoff (the
    delivery reads ``retrying`` meanwhile), then the delivery stays
    ``failed`` (a redelivery from GitHub retries it)."""
    try:
        return delivery_process(delivery_pk=delivery_pk)
    except Exception as exc:
        if self.request.retries < 3 and not self.request.is_eager:
            countdown = 5 * 2**self.request.retries
            delivery_will_retry(delivery_pk=delivery_pk, countdown_s=countdown)
            logger.warning(
                "[PRKeepalive] delivery_retry pk=%s error=%s",
                delivery_pk,
                type(exc).__name__,
            )
            raise self.retry(exc=exc, countdown=countdown) from exc
        logger.exception("[PRKeepalive] delivery_gave_up pk=%s", delivery_pk)
        return "failed"


@shared_task(name="prkeepalive.reconcile_all")
def reconcile_all() -> int:
    """Beat: re-read open keepalive PRs of every active repository."""
    return reconcile.reconcile_all()
