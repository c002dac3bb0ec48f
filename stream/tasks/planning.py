"""Celery tasks of planning: the thought-to-task poll, per agent and fanned out."""

from __future__ import annotations

from celery import shared_task

from stream.services.planning import planning_agents_due, planning_cycle


@shared_task(name="stream.planning_poll", ignore_result=True)
def planning_poll(agent_id: int) -> None:
    """One planning cycle for one agent: the opt-in drive tick, then the
    thought-to-task poll. A retry or duplicate delivery is harmless: acked
    thoughts leave the feed and the unique constraint allows one task per
    thought."""
    planning_cycle(agent_id=agent_id)


@shared_task(name="stream.planning_poll_all", ignore_result=True)
def planning_poll_all() -> None:
    """Beat entry: fan out one planning poll per active agent."""
    for agent_id in planning_agents_due():
        planning_poll.delay(agent_id)
