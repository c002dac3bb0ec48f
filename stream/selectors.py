"""Reads of the stream app: agents a user may see, the stream's feeds, the
latest world facts, an agent's planning tasks. Every function here reads and
never writes or logs.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet

from stream.core.frames import facts_from_wire
from stream.core.types import SituationFacts
from stream.models import Agent, Task, Thought, WorldSnapshot


def agent_list_visible(*, user: AbstractBaseUser) -> QuerySet[Agent]:
    """Agents the user owns or is a member of (staff see all)."""
    qs = Agent.objects.select_related("owner")
    if getattr(user, "is_staff", False):
        return qs
    return qs.filter(Q(owner=user) | Q(members=user)).distinct()


def with_agent(rows: Iterable[Thought], agent: Agent) -> list[Thought]:
    # The caller's agent object, not a JOIN: a join makes SQLite pick the
    # agent table first and miss the feed's partial index.
    thoughts = list(rows)
    for thought in thoughts:
        thought.agent = agent
    return thoughts


def thoughts_recent(*, agent: Agent, limit: int) -> list[Thought]:
    return with_agent(
        Thought.objects.filter(agent=agent, broadcast=True).order_by(
            "-created_at", "-pk"
        )[:limit],
        agent,
    )


def actionable_queryset(agent: Agent) -> QuerySet[Thought]:
    """Opt-in only: unprocessed AND convertEligible is exactly true (SC-B1)."""
    return Thought.objects.filter(agent=agent, processed=False, convert_eligible=True)


def latest_snapshot(*, agent: Agent) -> WorldSnapshot | None:
    return (
        WorldSnapshot.objects.filter(agent=agent)
        .order_by("-received_at", "-pk")
        .first()
    )


def latest_facts(*, agent: Agent) -> tuple[WorldSnapshot | None, SituationFacts | None]:
    """The agent's newest world snapshot and its facts (both None without one)."""
    snapshot = latest_snapshot(agent=agent)
    if snapshot is None:
        return None, None
    return snapshot, facts_from_wire(snapshot.facts)


def task_list(*, agent: Agent, status: str | None = None) -> QuerySet[Task]:
    """The agent's tasks, newest first, optionally of one status."""
    rows = Task.objects.filter(agent=agent).select_related("agent", "thought")
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("-created_at", "-pk")
