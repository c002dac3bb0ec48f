"""Celery task of case-result retention (beat runs it every hour)."""

from __future__ import annotations

from celery import shared_task

from evals.services.retention import case_results_sweep


@shared_task(name="evals.retention_sweep", ignore_result=True)
def sweep_case_results() -> int:
    """Delete the case results of finished runs older than
    ``CASE_RESULT_RETENTION_DAYS``, in batches; returns how many went.
    Idempotent."""
    return case_results_sweep().deleted
