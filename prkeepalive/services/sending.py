"""Putting a stored delivery on the task queue, and finding the ones that
never got there.

A delivery is stored first and sent to the queue after the commit. When the
queue cannot be reached the delivery stays stored (``queued`` with
``retry_at`` set and the error saying so), GitHub is answered 202, and the
reconciler sends it once the queue answers again. Sending twice is harmless:
the worker's claim runs a delivery once.
"""

from __future__ import annotations

import logging

from django.utils import timezone

from evalsite.dispatch import enqueue
from evalsite.services import unreachable
from prkeepalive.models import Delivery

logger = logging.getLogger(__name__)

NOT_SENT = (
    "not sent: the task queue was unreachable; the reconciler queues it when "
    "the queue answers again"
)


def delivery_send(*, delivery_pk: int, guid: str) -> bool:
    """Send one delivery to the worker; False (logged and recorded on the
    delivery) when the task queue cannot be reached."""
    try:
        enqueue("prkeepalive.process_delivery", delivery_pk)
    except Exception as exc:
        if not unreachable(exc):
            raise
        logger.error(
            "[PRKeepalive] delivery_not_sent guid=%s error=%s",
            guid,
            type(exc).__name__,
        )
        Delivery.objects.filter(pk=delivery_pk, status=Delivery.Status.QUEUED).update(
            retry_at=timezone.now(), error=NOT_SENT
        )
        return False
    return True


def sent_again(*, delivery_pk: int, guid: str) -> bool:
    """The reconciler's send: clears the not-sent mark once it went."""
    if not delivery_send(delivery_pk=delivery_pk, guid=guid):
        return False
    Delivery.objects.filter(
        pk=delivery_pk, status=Delivery.Status.QUEUED, error=NOT_SENT
    ).update(retry_at=None, error="")
    return True
