"""Sending one queued score export to ``OTLP_EXPORT_ENDPOINT``.

The run is read through ``evals.facade``, turned into OTLP
``gen_ai.evaluation.result`` events by ``traces.core.otlp_export`` (a case
whose model calls were recorded is linked to its trace's root span), or
into span events by ``traces.core.otlp_export_spans`` for an endpoint whose
path ends in ``/v1/traces`` (``traces.core.otlp_delivery``), and POSTed
as ``application/x-protobuf`` with ``OTLP_EXPORT_HEADERS``, within
``OTLP_EXPORT_TIMEOUT_S``. The POST never runs inside a database
transaction: the attempt is claimed and the outcome recorded in short
writes before and after it (call it outside ``transaction.atomic``).

Each attempt is counted on the row (``attempts``, ``last_error``). An answer
worth retrying (429, 502, 503, 504, no answer at all) leaves the row pending
and returns the delay before the next attempt, up to
``OTLP_EXPORT_RETRIES`` retries; then, or on any other error, the row is
``failed``. Delivery is at least once: a send that loses its answer is sent
again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Final
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from evals.facade import RunScores as StoredScores
from evals.facade import run_scores
from traces.core.otlp_delivery import (
    OUTCOME_FAILED,
    OUTCOME_RETRY,
    OUTCOME_SENT,
    SIGNAL_TRACES,
    EndpointAnswer,
    ExportSettingInvalid,
    endpoint_answer,
    parse_headers,
    retry_delay_s,
    signal_of,
)
from traces.core.otlp_export import (
    CONTENT_TYPE,
    CaseScore,
    EvaluationExport,
    RunScores,
    evaluation_export,
)
from traces.core.otlp_export_spans import evaluation_spans_export
from traces.models import ScoreExport, Span
from traces.services.export_queue import export_enabled

logger = logging.getLogger(__name__)

# Case events per run; a larger run sends its run-level events and the
# first cases by id (the log line counts the rest).
CASE_EVENTS_MAX: Final = 1000
OUTCOME_SKIPPED: Final = "skipped"


@dataclass(frozen=True, slots=True)
class SendResult:
    """What one send did: ``outcome`` is ``sent``, ``retry`` (send again
    after ``retry_in_s``), ``failed`` or ``skipped`` (nothing to send)."""

    outcome: str
    attempts: int = 0
    error: str = ""
    retry_in_s: float | None = None


def _trace_links(run_id: str) -> dict[str, tuple[str, str]]:
    """Case id -> (trace id, span id) of the first root span recorded for
    it in the run (one indexed query)."""
    links: dict[str, tuple[str, str]] = {}
    rows = (
        Span.objects.filter(run_ref=run_id, parent_span_id="")
        .exclude(case_ref="")
        .order_by("case_ref", "started_at", "pk")
        .values_list("case_ref", "trace_id", "span_id")
    )
    for case_ref, trace_id, span_id in rows:
        links.setdefault(case_ref, (trace_id, span_id))
    return links


def _scores(stored: StoredScores) -> RunScores:
    run = stored.run
    links = _trace_links(run.run_id)
    return RunScores(
        run_id=run.run_id,
        benchmark_id=run.benchmark_id,
        kind=run.kind,
        status=run.status,
        total_cases=run.total_cases,
        passed_cases=run.passed_cases,
        metrics=dict(run.metrics),
        verdict_passed=run.verdict_passed,
        failed_properties=tuple(run.failed_properties),
        finished_at=run.completed_at or run.started_at,
        started_at=run.started_at,
        cases=tuple(
            CaseScore(
                c.case_id,
                passed=c.passed,
                error=c.error,
                trace_id=links.get(c.case_id, ("", ""))[0],
                span_id=links.get(c.case_id, ("", ""))[1],
            )
            for c in stored.cases
        ),
        cases_recorded=stored.cases_recorded,
    )


def _payload(scores: RunScores, *, signal: str, now: datetime) -> EvaluationExport:
    if signal == SIGNAL_TRACES:
        return evaluation_spans_export(scores, max_cases=CASE_EVENTS_MAX)
    return evaluation_export(scores, observed_at=now, max_cases=CASE_EVENTS_MAX)


def _post(
    body: bytes, headers: tuple[tuple[str, str], ...], *, signal: str
) -> EndpointAnswer:
    try:
        response = httpx.post(
            settings.OTLP_EXPORT_ENDPOINT,
            content=body,
            headers=[*headers, ("Content-Type", CONTENT_TYPE)],
            timeout=settings.OTLP_EXPORT_TIMEOUT_S,
        )
    except httpx.TimeoutException:
        return EndpointAnswer(OUTCOME_RETRY, error="no answer within the timeout")
    except httpx.TransportError as exc:
        # The exception's text may hold the endpoint (a secret): its class only.
        return EndpointAnswer(
            OUTCOME_RETRY, error=f"could not reach the endpoint ({type(exc).__name__})"
        )
    except httpx.HTTPError as exc:
        # A broken answer (bad encoding, redirects without end): not taken.
        return EndpointAnswer(
            OUTCOME_RETRY, error=f"unreadable answer ({type(exc).__name__})"
        )
    return endpoint_answer(
        status=response.status_code,
        reason=response.reason_phrase,
        content_type=response.headers.get("content-type", ""),
        body=response.content,
        retry_after=response.headers.get("retry-after"),
        signal=signal,
    )


def _close(
    export: ScoreExport, status: str, error: str, *, attempts: int
) -> SendResult:
    ScoreExport.objects.filter(pk=export.pk, status=ScoreExport.Status.PENDING).update(
        status=status, last_error=error[:2000]
    )
    logger.error(
        "[Traces] score_export_failed run_id=%s export=%s attempts=%s error=%s",
        export.run_ref,
        export.pk,
        attempts,
        error,
        extra={"run_id": export.run_ref},
    )
    return SendResult(OUTCOME_FAILED, attempts=attempts, error=error)


def score_export_send(*, export_pk: int, now: datetime | None = None) -> SendResult:
    """Send pending export ``export_pk`` once (see the module docstring).

    Skips (writes nothing) when the export is off, the row is gone or not
    pending, or another send claimed this attempt. Logs
    ``[Traces] score_export_sent run_id=<ID> export=<PK> attempts=<N>
    events=<N> cases_left_out=<N>``, ``score_export_retry`` at WARNING or
    ``score_export_failed`` at ERROR.
    """
    export = ScoreExport.objects.filter(pk=export_pk).first()
    if (
        not export_enabled()
        or export is None
        or export.status != ScoreExport.Status.PENDING
    ):
        return SendResult(OUTCOME_SKIPPED)
    failed = ScoreExport.Status.FAILED
    try:
        headers = parse_headers(settings.OTLP_EXPORT_HEADERS)
    except ExportSettingInvalid as exc:
        return _close(export, failed, exc.message, attempts=export.attempts)
    stored = run_scores(export.run_ref, max_cases=CASE_EVENTS_MAX)
    if stored is None:
        return _close(export, failed, "the run no longer exists", attempts=0)
    if stored.run.completed_at is None:
        return _close(export, failed, "the run has not finished", attempts=0)
    signal = signal_of(urlsplit(settings.OTLP_EXPORT_ENDPOINT).path)
    payload = _payload(_scores(stored), signal=signal, now=now or timezone.now())
    claimed = ScoreExport.objects.filter(
        pk=export.pk, status=ScoreExport.Status.PENDING, attempts=export.attempts
    ).update(attempts=F("attempts") + 1)
    if not claimed:
        return SendResult(OUTCOME_SKIPPED)
    attempts = export.attempts + 1
    answer = _post(payload.body, headers, signal=signal)
    if answer.outcome == OUTCOME_SENT:
        ScoreExport.objects.filter(pk=export.pk).update(
            status=ScoreExport.Status.SENT,
            sent_at=timezone.now(),
            last_error=answer.error,
        )
        logger.info(
            "[Traces] score_export_sent run_id=%s export=%s attempts=%s events=%s "
            "cases_left_out=%s",
            export.run_ref,
            export.pk,
            attempts,
            payload.events,
            payload.cases_left_out,
            extra={"run_id": export.run_ref},
        )
        return SendResult(OUTCOME_SENT, attempts=attempts, error=answer.error)
    if answer.outcome == OUTCOME_RETRY and attempts <= settings.OTLP_EXPORT_RETRIES:
        delay = retry_delay_s(attempts, retry_after_s=answer.retry_after_s)
        ScoreExport.objects.filter(pk=export.pk).update(last_error=answer.error)
        logger.warning(
            "[Traces] score_export_retry run_id=%s export=%s attempts=%s "
            "retry_in_s=%s error=%s",
            export.run_ref,
            export.pk,
            attempts,
            delay,
            answer.error,
            extra={"run_id": export.run_ref},
        )
        return SendResult(
            OUTCOME_RETRY, attempts=attempts, error=answer.error, retry_in_s=delay
        )
    error = answer.error
    if answer.outcome == OUTCOME_RETRY:
        error = f"gave up after {attempts} attempts: {error}"
    return _close(export, failed, error, attempts=attempts)
