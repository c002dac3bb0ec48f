"""The run lifecycle: create, fan out, execute a chunk, fail, finalize, resume.

See ``evals.services.runs`` for the executor a benchmark kind plugs in and
what it is guaranteed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.errors import CoreError
from evals.models import Benchmark, CaseResult, Run
from evals.services.runs.executors import CaseExecutor, RunBroken, executor_for
from evals.services.runs.idempotency import Idempotency, idempotency_record
from evals.services.runs.recording import (
    IN_PROCESS_RECORD_BATCH,
    CaseRecorder,
    ProgressCallback,
)
from evalsite.celery import run_queue
from evalsite.dispatch import chord_send, signature
from evalsite.services import broker_send
from traces.facade import export_run_scores_later

logger = logging.getLogger(__name__)

ACTIVE_STATUSES = (Run.Status.QUEUED, Run.Status.RUNNING)
IN_PROCESS_CHUNK_SIZE = 250


def _executor_of(run: Run) -> CaseExecutor:
    return executor_for(run.benchmark.kind)


# --- creating and scheduling -------------------------------------------------


def case_chunks(ids: Sequence[str], size: int) -> list[list[str]]:
    """``ids`` in order, cut into lists of at most ``size``."""
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]


def run_summary(
    run: Run,
    *,
    status: str,
    metrics: Mapping[str, float | int],
    cases: list[dict[str, Any]],
) -> dict[str, Any]:
    """The eval-store run summary of an executed run (``runs/<run-id>.json``).

    ``passedCases``/``failedCases`` count the cases that ran, so they agree
    with ``caseResults``; ``totalCases`` counts every case, so a partial or
    failed run's never-run cases are ``totalCases - passedCases -
    failedCases``, and ``notes`` says so in words (``3 of 20 cases never
    ran``).
    """
    passed = sum(1 for c in cases if c["passed"])
    failed = len(cases) - passed
    summary: dict[str, Any] = {
        "schemaVersion": 1,
        "runId": run.run_id,
        "benchmarkId": run.benchmark.benchmark_id,
        "status": status,
        "startedAt": run.started_at.isoformat(),
        "totalCases": run.total_cases,
        "passedCases": passed,
        "failedCases": failed,
        "metrics": dict(metrics),
    }
    if run.completed_at is not None:
        summary["completedAt"] = run.completed_at.isoformat()
    not_run = run.total_cases - passed - failed
    if status != Run.Status.RUNNING and not_run > 0:
        summary["notes"] = not_run_note(not_run, run.total_cases)
    if cases:
        summary["caseResults"] = cases
    return summary


def not_run_note(not_run: int, total: int) -> str:
    """``3 of 20 cases never ran`` (``1 of 20 case never ran``)."""
    noun = "case" if not_run == 1 else "cases"
    return f"{not_run} of {total} {noun} never ran"


def benchmark_upsert(
    *, benchmark_id: str, kind: str, title: str, case_count: int
) -> Benchmark:
    """The benchmark ``benchmark_id`` of ``kind``, created or brought up to
    date (title, case count), for a kind whose runs are created by another
    app (gridworld batches); call it inside that app's transaction."""
    benchmark, _ = Benchmark.objects.update_or_create(
        benchmark_id=benchmark_id,
        defaults={"kind": kind, "title": title, "case_count": case_count},
    )
    return benchmark


def run_create(
    *,
    benchmark: Benchmark,
    run_id: str,
    started_at: datetime,
    total_cases: int,
    config: dict[str, Any],
    source: str = Run.Source.HARNESS,
    artifacts_dir: str = "",
    suite_sha256: str = "",
    user: Any = None,
    schedule: bool = True,
    queue: str | None = None,
    case_ids: Sequence[str] | None = None,
    idempotency: Idempotency | None = None,
) -> Run:
    """Record a ``queued`` run of ``benchmark`` with a ``running`` run summary
    and, with ``schedule``, send its chord after commit (``case_ids`` saves
    the executor re-reading them). Call it inside the transaction that
    writes your benchmark's other rows; it logs nothing (the kind logs its
    own ``run_created`` line). ``idempotency``: the request's key, stored
    with the run (``evals.services.runs.idempotency``)."""
    with transaction.atomic():
        run = Run.objects.create(
            run_id=run_id,
            benchmark=benchmark,
            status=Run.Status.QUEUED,
            source=source,
            started_at=started_at,
            total_cases=total_cases,
            config=config,
            suite_sha256=suite_sha256,
            artifacts_dir=artifacts_dir,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        run.summary = run_summary(run, status="running", metrics={}, cases=[])
        run.save(update_fields=["summary"])
        idempotency_record(run, idempotency)
        if schedule:
            run_enqueue(run=run, queue=queue, case_ids=case_ids)
    return run


def run_enqueue(
    *,
    run: Run,
    queue: str | None = None,
    case_ids: Sequence[str] | None = None,
    close_unsent: bool = True,
) -> int:
    """Send the run's chord after the current transaction commits (at once
    outside one); returns the number of chunks.

    One ``evals.run_chunk`` task per ``EVALS_CHUNK_SIZE`` case ids (in the
    executor's order), joined by ``evals.finalize_run``; routed to ``queue``
    when given, else to the queue of the run's benchmark kind
    (``evalsite.celery.run_queue``: ``gridworld`` for a gridworld batch,
    ``runs`` otherwise; the sweeper's resends too). Enqueueing a half-done
    run again is safe: recorded cases are skipped, so this also resumes a
    run whose worker went away.
    """
    if case_ids is None:
        case_ids = _executor_of(run).case_ids(run)
    if queue is None:
        queue = run_queue(run.benchmark.kind)
    chunks = case_chunks(list(case_ids), settings.EVALS_CHUNK_SIZE)
    run_pk = run.pk
    transaction.on_commit(
        lambda: _schedule(run_pk, chunks, queue=queue, close_unsent=close_unsent)
    )
    return len(chunks)


def _schedule(
    run_pk: int,
    chunks: list[list[str]],
    *,
    queue: str | None,
    close_unsent: bool = True,
) -> None:
    """Send the chord now. A broker that cannot be reached raises
    ``ServiceUnavailable`` (the API's 503). With ``close_unsent`` a run that
    could not be sent is deleted first (``run_discard``): the caller's error
    answer then means that no run exists, and none is left queued for the
    sweeper to start behind the client's back."""
    options: dict[str, Any] = {"queue": queue} if queue else {}
    # The callback takes only the run id (immutable signature); the members'
    # results, which the join needs, are on at the task level.
    header = [signature("evals.run_chunk", run_pk, ids, **options) for ids in chunks]
    finalize = signature("evals.finalize_run", run_pk, **options)
    try:
        broker_send(
            (lambda: chord_send(header, finalize)) if chunks else finalize.apply_async,
            what="eval_run",
        )
    except Exception as exc:
        if not close_unsent:
            raise
        # Stored but never (fully) sent: delete the run rather than leave it
        # queued; chunks that did go out find no run and do nothing.
        run_discard(run_pk=run_pk, reason=getattr(exc, "code", type(exc).__name__))
        raise


def run_discard(*, run_pk: int, reason: str) -> None:
    """Delete a run that could not be sent, with its rows (case results,
    idempotency key, the kind's rows that cascade). Logs
    ``[Eval] run_discarded run_id=<ID> reason=<reason>``."""
    run_id = Run.objects.filter(pk=run_pk).values_list("run_id", flat=True).first()
    if run_id is None:
        return
    Run.objects.filter(pk=run_pk).delete()
    logger.error("[Eval] run_discarded run_id=%s reason=%s", run_id, reason)


def run_resume(
    *, run_pk: int, queue: str | None = None, close_unsent: bool = True
) -> int:
    """Send the chunks of an active run's cases that have no result yet (and
    the finalize); returns the number of chunks sent, 0 for a finished run.

    A run whose cases can no longer be listed (its benchmark is gone) is
    failed with ``reason=resume_failed`` and finalized with what it has.
    ``close_unsent``: see ``_schedule`` (the sweeper leaves a run it could
    not send as it was, for its next sweep).
    """
    run = Run.objects.select_related("benchmark").get(pk=run_pk)
    if run.status not in ACTIVE_STATUSES or run.completed_at is not None:
        return 0
    try:
        ids = list(_executor_of(run).case_ids(run))
    except CoreError as exc:
        run_fail(run_pk=run.pk, error=exc.message, code="resume_failed")
        return 0
    done = set(run.case_results.values_list("case_id", flat=True))
    return run_enqueue(
        run=run,
        queue=queue,
        case_ids=[i for i in ids if i not in done],
        close_unsent=close_unsent,
    )


# --- executing ---------------------------------------------------------------


def _mark_running(run: Run, executor: CaseExecutor) -> None:
    """queued -> running, once; the winner calls the executor's ``started``."""
    if Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, updated_at=timezone.now()
    ):
        run.status = Run.Status.RUNNING
        executor.started(run)


def run_chunk_execute(
    *,
    run_pk: int,
    case_ids: Iterable[str],
    on_progress: ProgressCallback | None = None,
    record_batch: int | None = None,
) -> int:
    """Run the given cases of a run; returns how many were recorded now.

    Does nothing for a run that is no longer queued or running; fails the
    run when the executor's ``prepare`` raises ``RunBroken``; skips cases
    that already have a ``CaseResult``. ``record_batch``: the most cases
    committed together (``RECORD_BATCH`` by default; a batch is committed
    after ``RECORD_INTERVAL_S`` in any case).
    """
    run = Run.objects.select_related("benchmark").filter(pk=run_pk).first()
    if run is None or run.status not in ACTIVE_STATUSES:
        # Gone: discarded because its start could not be sent.
        return 0
    executor = _executor_of(run)
    try:
        context = executor.prepare(run)
    except RunBroken as exc:
        run_fail(run_pk=run.pk, error=exc.message, code=exc.code)
        return 0
    _mark_running(run, executor)
    wanted = list(dict.fromkeys(case_ids))
    done = set(
        CaseResult.objects.filter(run=run, case_id__in=wanted).values_list(
            "case_id", flat=True
        )
    )
    recorder = CaseRecorder(run, on_progress, batch=record_batch)
    executor.execute(run, context, [i for i in wanted if i not in done], recorder)
    recorder.flush()
    return recorder.recorded


def run_execute(*, run: Run, on_progress: ProgressCallback | None = None) -> Run:
    """Run every chunk of ``run`` in this process, then finalize it.

    The same functions the Celery tasks call, without a broker: the CLI's
    ``--wait``, the demo and the benchmark use it. Safe to call on a
    half-done run (recorded cases are skipped).
    """
    ids = list(_executor_of(run).case_ids(run))
    # Nothing runs beside a chunk here, so chunks are larger than the
    # workers' and what every chunk pays (loading the run, checking the
    # suite, listing what is recorded) is paid less often. Results are
    # committed every RECORD_INTERVAL_S (the progress still moves) and at the
    # end of each chunk, not every RECORD_BATCH cases: each commit is a disk
    # flush on Postgres, and a crash here redoes at most one batch too.
    size = max(settings.EVALS_CHUNK_SIZE, IN_PROCESS_CHUNK_SIZE)
    for chunk in case_chunks(ids, size):
        run_chunk_execute(
            run_pk=run.pk,
            case_ids=chunk,
            on_progress=on_progress,
            record_batch=IN_PROCESS_RECORD_BATCH,
        )
        if Run.objects.filter(pk=run.pk, status=Run.Status.FAILED).exists():
            break
    return run_finalize(run_pk=run.pk)


# --- finishing ---------------------------------------------------------------


def run_finalize_if_complete(*, run_pk: int) -> Run | None:
    """``run_finalize`` once every case of an active run is stored; None
    (nothing done) while cases are missing or the run has finished.

    Safe beside the chord's own finalize: finalizing is a conditional
    update, so whichever comes second returns the run as it is.
    """
    if not Run.objects.filter(
        pk=run_pk,
        status__in=ACTIVE_STATUSES,
        completed_at__isnull=True,
        progress_done__gte=F("total_cases"),
    ).exists():
        return None
    return run_finalize(run_pk=run_pk)


def run_fail(*, run_pk: int, error: str, code: str = "run_failed") -> Run:
    """Mark an active run failed with ``error`` and finalize what it has.

    A no-op for a run that already finished. Logs
    ``[Eval] run_failed run_id=<ID> reason=<CODE>`` at ERROR.
    """
    run = Run.objects.get(pk=run_pk)
    changed = Run.objects.filter(pk=run_pk, status__in=ACTIVE_STATUSES).update(
        status=Run.Status.FAILED, error=error[:5000], updated_at=timezone.now()
    )
    if changed:
        logger.error(
            "[Eval] run_failed run_id=%s reason=%s",
            run.run_id,
            code,
            extra={"run_id": run.run_id, "error": error[:500]},
        )
    return run_finalize(run_pk=run_pk)


def run_finalize(*, run_pk: int, now: datetime | None = None) -> Run:
    """Close the run from its stored results: status, counts, metrics,
    verdict and run summary, then the executor's ``finished`` hook, the
    OTLP score export when one is set up (queued after commit) and
    ``[Eval] run_finished run_id=<ID> status=<S> passed_cases=<N>
    total_cases=<N>``.

    Idempotent: a finalized run (``completed_at`` set) is returned as is, and
    of two concurrent finalizes only the one whose conditional update wins
    runs the hook and logs.
    """
    run = Run.objects.select_related("benchmark").get(pk=run_pk)
    if run.completed_at is not None:
        return run
    executor = _executor_of(run)
    now = now or timezone.now()
    stored = list(run.case_results.all())
    missing = max(run.total_cases - len(stored), 0)
    failed = run.status == Run.Status.FAILED
    verdict = executor.verdict(run, stored, missing=missing, failed=failed)
    if failed:
        status = Run.Status.FAILED
    elif missing or verdict.errored_cases:
        status = Run.Status.PARTIAL
    else:
        status = Run.Status.COMPLETED
    passed_cases = sum(1 for c in verdict.cases if c.passed)
    wire_metrics = dict(verdict.metrics)
    case_rows = [
        {"caseId": c.case_id, "passed": c.passed, "durationMs": c.latency_ms or 0.0}
        for c in verdict.cases
    ]
    run.completed_at = now
    summary = run_summary(run, status=status, metrics=wire_metrics, cases=case_rows)
    updated = Run.objects.filter(pk=run.pk, completed_at__isnull=True).update(
        status=status,
        completed_at=now,
        passed_cases=passed_cases,
        failed_cases=len(case_rows) - passed_cases,
        metrics=wire_metrics,
        verdict_passed=verdict.passed,
        failed_properties=sorted(verdict.failed_properties),
        summary=summary,
        uncertainty=dict(verdict.uncertainty),
        updated_at=now,
    )
    run.refresh_from_db()
    if not updated:
        return run
    executor.finished(run, verdict)
    # The scores go out as OTLP evaluation events once this commits, when
    # OTLP_EXPORT_ENDPOINT is set.
    export_run_scores_later(run.run_id)
    logger.info(
        "[Eval] run_finished run_id=%s status=%s passed_cases=%s total_cases=%s",
        run.run_id,
        status,
        passed_cases,
        run.total_cases,
        extra={"run_id": run.run_id},
    )
    return run
