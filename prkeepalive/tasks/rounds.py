"""Celery tasks of orchestrator rounds."""

from __future__ import annotations

import logging

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task(name="prkeepalive.start_round", acks_late=True)
def start_round(round_pk: int) -> str:
    """Post the round's instruction and start its agent; a round that fails
    before its agent starts is marked failed (never retried: a second post
    would be a second instruction)."""
    from prkeepalive.models import Round
    from prkeepalive.services.rounds import round_start

    try:
        return round_start(round_pk=round_pk)
    except Exception:
        logger.exception("[PRKeepalive] round_start_failed pk=%s", round_pk)
        Round.objects.filter(pk=round_pk, status=Round.Status.LOCKED).update(
            status=Round.Status.FAILED, error="the instruction could not be posted"
        )
        return "failed"
