"""Celery tasks of the run lifecycle: ids in, one service call each.

A run of any executable benchmark (scenario suites, gridworld batches) fans
out as a chord: ``evals.run_chunk`` per chunk of case ids, joined by
``evals.finalize_run`` (``evals.services.runs``). Both are safe to run twice
(recorded cases are skipped, finalizing is a conditional update), which is
what ``acks_late`` + ``reject_on_worker_lost`` need: a chunk whose worker
died is redelivered and only runs what is missing.
"""

from __future__ import annotations

import logging

from celery import Task, shared_task

from evals.services.runs import lifecycle, sweeper

logger = logging.getLogger(__name__)


# Results on at the task level, not only on the chord's signatures: a retry
# is re-sent from the request, and a retried member whose result is not
# stored would leave the chord waiting forever.
@shared_task(name="evals.run_chunk", bind=True, max_retries=2, ignore_result=False)
def run_chunk(self: Task, run_pk: int, case_ids: list[str]) -> int:
    """Run one chunk of a run's cases; returns how many were recorded.

    A crash outside a case (database gone, disk full) is retried twice,
    then the run is marked failed so it never hangs in ``running``.
    """
    try:
        recorded = lifecycle.run_chunk_execute(run_pk=run_pk, case_ids=case_ids)
        # The run is closed as soon as its last case is stored, not when the
        # chord's join next polls (the join's finalize is then a no-op).
        lifecycle.run_finalize_if_complete(run_pk=run_pk)
        return recorded
    except Exception as exc:
        retries = self.request.retries
        if retries < 2:
            logger.warning(
                "[Eval] chunk_retry run_pk=%s retries=%s error=%s",
                run_pk,
                retries,
                type(exc).__name__,
            )
            raise self.retry(exc=exc, countdown=2) from exc
        logger.exception("[Eval] chunk_failed run_pk=%s", run_pk)
        lifecycle.run_fail(
            run_pk=run_pk, error=f"chunk failed: {exc}", code="chunk_failed"
        )
        return 0


@shared_task(name="evals.finalize_run", ignore_result=True)
def finalize_run(run_pk: int) -> None:
    """Chord callback: status, metrics, verdict, run summary, the kind's
    ``finished`` hook; a no-op when done."""
    lifecycle.run_finalize(run_pk=run_pk)


@shared_task(name="evals.sweep_stale_runs", ignore_result=True)
def sweep_stale_runs() -> None:
    """Beat: resume runs that stopped moving, fail those past their resumes
    (``evals.services.runs.sweeper``); safe to run twice at once."""
    sweeper.runs_sweep_stale()
