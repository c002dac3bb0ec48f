"""Celery tasks of the service itself."""

from __future__ import annotations

from celery import shared_task

from evalsite.services import heartbeat_record, selfcheck_record


@shared_task(name="evalsite.record_heartbeat", ignore_result=True)
def record_heartbeat(source: str) -> None:
    """Record that a worker ran a task scheduled by ``source``; idempotent upsert."""
    heartbeat_record(source=source)


@shared_task(name="evalsite.selfcheck_part")
def selfcheck_part(value: int) -> int:
    """One member of the self-check chord: returns its input (results on)."""
    return value


@shared_task(name="evalsite.selfcheck_done", ignore_result=True)
def selfcheck_done(results: list[int], token: str) -> None:
    """Chord callback: proves the group ran and its results reached the callback."""
    selfcheck_record(token=token, results=results)
