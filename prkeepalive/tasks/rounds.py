"""Celery tasks of orchestrator rounds."""

from __future__ import annotations

from celery import shared_task

from prkeepalive.services.rounds import round_start_or_fail


@shared_task(name="prkeepalive.start_round", acks_late=True)
def start_round(round_pk: int) -> str:
    """Post the round's instruction and start its agent; a round that fails
    before its agent starts is marked failed (never retried: a second post
    would be a second instruction)."""
    return round_start_or_fail(round_pk=round_pk)
