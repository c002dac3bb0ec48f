"""Celery task of search: the indexer's pass (beat runs it every few
seconds; queue ``maintenance``)."""

from __future__ import annotations

from celery import shared_task

from search.services.indexer import index_pass


@shared_task(name="search.index_pass", ignore_result=True)
def search_index_pass() -> int:
    """Index what was written since the last pass; returns how many
    documents were written. Idempotent: a pass that finds nothing new
    writes nothing, and two passes at once write the same documents."""
    return sum(index_pass().written.values())
