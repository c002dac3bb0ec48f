"""Celery tasks of the score export: ids in, one service call each."""

from __future__ import annotations

import logging

from celery import Task, shared_task

from traces.services import export, export_queue

logger = logging.getLogger(__name__)


# Celery's own retry count is left unbounded on purpose: the bound is the
# row's ``attempts`` against OTLP_EXPORT_RETRIES, which the service checks
# and which also counts the sweep's resends.
@shared_task(
    name="traces.send_score_export",
    bind=True,
    max_retries=None,
    acks_late=True,
    ignore_result=True,
)
def send_score_export(self: Task, export_pk: int) -> str:
    """Send one queued score export; an answer worth retrying is sent again
    after the service's backoff, until the service gives up. Returns the
    outcome (``sent``, ``failed``, ``skipped``).

    Run eagerly (``CELERY_TASK_ALWAYS_EAGER``) there is no broker to hold a
    delayed retry, so the attempts follow one another at once; the service
    still bounds them.
    """
    while True:
        result = export.score_export_send(export_pk=export_pk)
        if result.retry_in_s is None:
            return result.outcome
        if not self.request.is_eager:
            raise self.retry(countdown=result.retry_in_s)


@shared_task(name="traces.sweep_score_exports", ignore_result=True)
def sweep_score_exports() -> int:
    """Beat: send again the pending exports whose send was lost; how many."""
    return len(export_queue.score_exports_resend())
