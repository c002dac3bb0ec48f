"""Celery tasks of the keep-alive loop: ids in, one service call.

KA-A8: nothing here reaches planning (checked by import-linter).
"""

from __future__ import annotations

from celery import shared_task

from stream.services import keepalive as keepalive_service


@shared_task(name="stream.keepalive_tick", ignore_result=True)
def keepalive_tick(agent_id: int) -> None:
    """One keep-alive tick; the service locks the agent's state, so a retry or a
    duplicate delivery just sees the cooldown and skips."""
    keepalive_service.keepalive_tick(agent_id=agent_id)


@shared_task(name="stream.keepalive_tick_all", ignore_result=True)
def keepalive_tick_all() -> None:
    """Beat entry: fan out one tick task per active agent."""
    for agent_id in keepalive_service.keepalive_tick_all():
        keepalive_tick.delay(agent_id)
