"""Celery tasks of the cognitive stream: ids in, one service call."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="stream.keepalive_tick", ignore_result=True)
def keepalive_tick(agent_id: int) -> None:
    """One keep-alive tick; the service locks the agent's state, so a retry or a
    duplicate delivery just sees the cooldown and skips."""
    from stream.services.keepalive import keepalive_tick as tick

    tick(agent_id=agent_id)


@shared_task(name="stream.keepalive_tick_all", ignore_result=True)
def keepalive_tick_all() -> None:
    """Beat entry: fan out one tick task per active agent."""
    from stream.services.keepalive import keepalive_tick_all as due

    for agent_id in due():
        keepalive_tick.delay(agent_id)


@shared_task(name="stream.prune_all", ignore_result=True)
def prune_all() -> None:
    """Apply retention to every agent's queue; idempotent."""
    from stream.services.thoughts import stream_prune_all

    stream_prune_all()


@shared_task(name="stream.log_agency_counters", ignore_result=True)
def log_agency_counters() -> None:
    """Log each agent's `[Agency {uptimeMin}m] ...` line (seed 004 §5)."""
    from stream.services.counters import counters_log_all

    counters_log_all()


@shared_task(name="stream.planning_poll", ignore_result=True)
def planning_poll(agent_id: int) -> None:
    """One planning cycle for one agent: the opt-in drive tick, then the
    thought-to-task poll. A retry or duplicate delivery is harmless: acked
    thoughts leave the feed and the unique constraint allows one task per
    thought."""
    from stream.services.planning import planning_cycle

    planning_cycle(agent_id=agent_id)


@shared_task(name="stream.planning_poll_all", ignore_result=True)
def planning_poll_all() -> None:
    """Beat entry: fan out one planning poll per active agent."""
    from stream.services.planning import planning_agents_due

    for agent_id in planning_agents_due():
        planning_poll.delay(agent_id)
