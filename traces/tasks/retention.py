"""Celery task of span retention (beat runs it every hour)."""

from __future__ import annotations

from celery import shared_task

from traces.services.retention import spans_prune


@shared_task(name="traces.prune_spans", ignore_result=True)
def prune_spans() -> int:
    """Delete the spans older than ``TRACE_RETENTION_DAYS``, in batches;
    returns how many went. Idempotent."""
    return spans_prune().deleted
