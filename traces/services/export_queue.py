"""The bounded queue of score exports (``ScoreExport`` rows).

A finished run is queued as a ``pending`` row once its finish has committed,
and ``traces.send_score_export`` is sent for it; the sending itself
(``traces.services.export``) reads the run through ``evals.facade`` and so
stays out of this module, which the run lifecycle reaches through
``traces.facade``.

With ``OTLP_EXPORT_ENDPOINT`` empty nothing here writes, sends or logs. At
most ``OTLP_EXPORT_QUEUE_MAX`` rows are pending: a new one pushes the oldest
out as ``dropped`` (its ``last_error`` and a log line say so), never
silently. A pending row whose send was lost (a broker down, a worker killed)
is sent again by the beat sweep once it is ``SWEEP_AFTER_S`` old.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Final

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from evalsite.dispatch import enqueue
from evalsite.services import unreachable
from traces.models import ScoreExport

logger = logging.getLogger(__name__)

SEND_TASK: Final = "traces.send_score_export"
# Longer than every backoff of the default retries (5 + 10 + 20 s) with their
# timeouts, so the sweep does not race a retry that is on its way.
SWEEP_AFTER_S: Final = 600
SWEEP_BATCH: Final = 100


def export_enabled() -> bool:
    return bool(settings.OTLP_EXPORT_ENDPOINT)


def score_export_schedule(*, run_id: str) -> None:
    """Queue the export of run ``run_id`` once the current transaction
    commits (at once outside one); nothing at all when the export is off.

    ``robust``: an export that cannot be queued (the database or the broker
    failing) is logged and never undoes or breaks the run's finish.
    """
    if not export_enabled():
        return

    # A named function, not a partial: Django logs a robust callback's
    # failure by its __qualname__.
    def queue_export() -> None:
        score_export_enqueue(run_id=run_id)

    transaction.on_commit(queue_export, robust=True)


def score_export_enqueue(*, run_id: str) -> ScoreExport | None:
    """A pending export of ``run_id`` (the one already pending, if any),
    the oldest pending ones marked dropped beyond ``OTLP_EXPORT_QUEUE_MAX``,
    then ``traces.send_score_export`` sent after commit. None when the
    export is off.

    Logs ``[Traces] score_export_queued run_id=<ID> export=<PK>`` and, per
    row pushed out, ``[Traces] score_export_dropped run_id=<ID> export=<PK>
    reason=queue_full queue_max=<N>`` at WARNING.
    """
    if not export_enabled():
        return None
    queue_max = settings.OTLP_EXPORT_QUEUE_MAX
    with transaction.atomic():
        export = ScoreExport.objects.filter(
            run_ref=run_id, status=ScoreExport.Status.PENDING
        ).first()
        if export is not None:
            return export
        export = ScoreExport.objects.create(run_ref=run_id[:200])
        pending = ScoreExport.objects.filter(status=ScoreExport.Status.PENDING)
        excess = pending.count() - queue_max
        dropped = (
            list(
                pending.exclude(pk=export.pk)
                .order_by("created_at", "pk")
                .values_list("pk", "run_ref")[:excess]
            )
            if excess > 0
            else []
        )
        if dropped:
            ScoreExport.objects.filter(
                pk__in=[pk for pk, _ in dropped], status=ScoreExport.Status.PENDING
            ).update(
                status=ScoreExport.Status.DROPPED,
                last_error=(
                    f"dropped: more than {queue_max} exports were waiting "
                    "(OTLP_EXPORT_QUEUE_MAX)"
                ),
            )
        transaction.on_commit(lambda: _send(export.pk, run_id))
    logger.info(
        "[Traces] score_export_queued run_id=%s export=%s",
        run_id,
        export.pk,
        extra={"run_id": run_id},
    )
    for pk, dropped_run in dropped:
        logger.warning(
            "[Traces] score_export_dropped run_id=%s export=%s reason=queue_full "
            "queue_max=%s",
            dropped_run,
            pk,
            queue_max,
            extra={"run_id": dropped_run},
        )
    return export


def _send(export_pk: int, run_id: str) -> None:
    """Send the task; a broker that cannot be reached leaves the row
    pending for the sweep."""
    try:
        enqueue(SEND_TASK, export_pk)
    except Exception as exc:
        if not unreachable(exc):
            raise
        logger.warning(
            "[Traces] score_export_deferred run_id=%s export=%s "
            "reason=broker_unavailable",
            run_id,
            export_pk,
            extra={"run_id": run_id},
        )


def score_exports_resend(*, now: datetime | None = None) -> tuple[int, ...]:
    """Send ``traces.send_score_export`` again for the oldest pending
    exports queued more than ``SWEEP_AFTER_S`` ago, at most
    ``SWEEP_BATCH`` of them; their pks. Nothing when the export is off.
    Safe beside a send in flight: a send claims its attempt with a
    conditional update (``traces.services.export``)."""
    if not export_enabled():
        return ()
    now = now or timezone.now()
    due = list(
        ScoreExport.objects.filter(
            status=ScoreExport.Status.PENDING,
            created_at__lt=now - timedelta(seconds=SWEEP_AFTER_S),
        )
        .order_by("created_at", "pk")
        .values_list("pk", "run_ref")[:SWEEP_BATCH]
    )
    for pk, run_id in due:
        _send(pk, run_id)
    if due:
        logger.info("[Traces] score_export_sweep resent=%s", len(due))
    return tuple(pk for pk, _ in due)
