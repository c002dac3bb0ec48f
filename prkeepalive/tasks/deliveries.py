"""Celery tasks of webhook deliveries and the periodic reconciler."""

from __future__ import annotations

from celery import Task, shared_task

from prkeepalive.services import reconcile
from prkeepalive.services.dispatch import (
    DELIVERY_RETRIES,
    RetryDelivery,
    delivery_attempt,
)


@shared_task(
    name="prkeepalive.process_delivery",
    bind=True,
    max_retries=DELIVERY_RETRIES,
    acks_late=True,
)
def process_delivery(self: Task, delivery_pk: int) -> str:
    """Decide one webhook delivery; a failure is retried with backoff (the
    delivery reads ``retrying`` meanwhile), then the delivery stays
    ``failed`` (a redelivery from GitHub retries it)."""
    try:
        return delivery_attempt(
            delivery_pk=delivery_pk,
            retries=self.request.retries,
            may_retry=not self.request.is_eager,
        )
    except RetryDelivery as retry:
        failure = retry.__cause__
        raise self.retry(exc=failure, countdown=retry.countdown_s) from failure


@shared_task(name="prkeepalive.reconcile_all")
def reconcile_all() -> int:
    """Beat: re-read open keepalive PRs of every active repository."""
    return reconcile.reconcile_all()
