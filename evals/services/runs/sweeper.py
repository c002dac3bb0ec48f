"""The stale-run sweeper: runs that stopped moving are resumed, then failed.

At-least-once delivery brings back the chunk of a worker that died, but some
losses are outside any message: a web process that died between committing a
run and sending its chord, a chord join that gave up
(``EVALS_CHORD_MAX_WAIT_S``), a broker that lost its data. A run is *stale*
when it is queued or running and nothing about it changed (no recorded case,
no status change: ``updated_at``) for ``EVALS_STALE_RUN_S``. The sweeper
(beat, ``evals.sweep_stale_runs``) resumes a stale run: it sends the chunks
of the cases that have no result yet plus the finalize (``run_resume``), and
counts the resume in ``config["resumes"]``. A run resumed
``EVALS_STALE_RUN_MAX_RESUMES`` times that is still stale is failed with
``reason=stale``, so no run stays ``running`` forever.

Safe to run concurrently with itself and with the run's own tasks: a resume
claims the run with a conditional update on ``updated_at``, and everything it
sends is idempotent (recorded cases are skipped, finalizing happens once).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.errors import ServiceUnavailable
from evals.models import Run
from evals.services.runs.lifecycle import ACTIVE_STATUSES, run_fail, run_resume

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SweepOutcome:
    resumed: tuple[str, ...]
    failed: tuple[str, ...]


def runs_stale(*, now: datetime, stale_after_s: int) -> list[Run]:
    """Active runs that did not change for ``stale_after_s``, oldest first."""
    return list(
        Run.objects.select_related("benchmark")
        .filter(
            status__in=ACTIVE_STATUSES,
            completed_at__isnull=True,
            updated_at__lt=now - timedelta(seconds=stale_after_s),
        )
        .order_by("updated_at", "pk")[: settings.EVALS_STALE_RUN_BATCH]
    )


def runs_sweep_stale(
    *,
    now: datetime | None = None,
    stale_after_s: int | None = None,
    max_resumes: int | None = None,
) -> SweepOutcome:
    """Resume every stale run, or fail it past ``max_resumes``.

    Logs ``[Eval] run_resumed run_id=<ID> resumes=<N> missing=<N>`` per
    resume (WARNING) and ``run_fail``'s ``[Eval] run_failed run_id=<ID>
    reason=stale`` per run given up on. A broker that is down stops the
    sweep (the next one retries); the run is left as it was.
    """
    now = now or timezone.now()
    stale_after_s = stale_after_s or settings.EVALS_STALE_RUN_S
    if max_resumes is None:
        max_resumes = settings.EVALS_STALE_RUN_MAX_RESUMES
    resumed: list[str] = []
    failed: list[str] = []
    for run in runs_stale(now=now, stale_after_s=stale_after_s):
        resumes = int(run.config.get("resumes", 0))
        if resumes >= max_resumes:
            run_fail(
                run_pk=run.pk,
                error=(
                    f"no progress for {stale_after_s} s after {resumes} "
                    "resumes; its remaining cases were never recorded"
                ),
                code="stale",
            )
            failed.append(run.run_id)
            continue
        config = dict(run.config, resumes=resumes + 1)
        # The claim: only the sweeper that moves updated_at resumes the run.
        claimed = Run.objects.filter(
            pk=run.pk, updated_at=run.updated_at, completed_at__isnull=True
        ).update(config=config, updated_at=timezone.now())
        if not claimed:
            continue
        missing = run.total_cases - run.case_results.count()
        try:
            run_resume(run_pk=run.pk, close_unsent=False)
        except ServiceUnavailable:
            logger.warning("[Eval] sweep_stopped reason=broker_unavailable")
            break
        logger.warning(
            "[Eval] run_resumed run_id=%s resumes=%s missing=%s",
            run.run_id,
            resumes + 1,
            missing,
            extra={"run_id": run.run_id},
        )
        resumed.append(run.run_id)
    return SweepOutcome(tuple(resumed), tuple(failed))
