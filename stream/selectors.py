"""Reads of the stream app: agents a user may see, the stream's feeds, the
latest world facts, an agent's planning tasks. Every function here reads and
never writes or logs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Case, Count, OuterRef, Q, QuerySet, Subquery, When

from stream.core.frames import facts_from_wire
from stream.core.types import SituationFacts
from stream.models import AgencyCounters, Agent, Task, Thought, WorldSnapshot


def agent_list_visible(*, user: AbstractBaseUser) -> QuerySet[Agent]:
    """Agents the user owns or is a member of (staff see all)."""
    qs = Agent.objects.select_related("owner")
    if getattr(user, "is_staff", False):
        return qs
    return qs.filter(Q(owner=user) | Q(members=user)).distinct()


# The inactive agent an end_to_end eval run streams into is named
# eval-<run id>; one exists per such run.
EVAL_AGENT_PREFIX = "eval-"


@dataclass(frozen=True, slots=True)
class AgentRow:
    """An agent on the agent list with when it was last active: its last
    authenticated call, or the newest thought or percept it published,
    whichever is later."""

    agent: Agent
    last_active_at: datetime | None


def agent_directory(
    *, user: AbstractBaseUser, include_eval_agents: bool = False
) -> tuple[list[AgentRow], int]:
    """The agent list a user sees and how many eval-run agents it leaves
    out (all of them unless ``include_eval_agents``). One query."""
    eval_agent = Q(name__startswith=EVAL_AGENT_PREFIX, is_active=False)
    visible = agent_list_visible(user=user)
    agents = visible.annotate(
        is_eval_agent=Case(When(eval_agent, then=True), default=False),
        # Subqueries, not joins: a join of thoughts and percepts would
        # multiply rows; each subquery walks its (agent, time) index.
        last_thought_at=Subquery(
            Thought.objects.filter(agent=OuterRef("pk"), source="agent")
            .order_by("-created_at")
            .values("created_at")[:1]
        ),
        last_percept_at=Subquery(
            WorldSnapshot.objects.filter(agent=OuterRef("pk"))
            .order_by("-received_at")
            .values("received_at")[:1]
        ),
    ).order_by("name")
    rows: list[AgentRow] = []
    hidden = 0
    for agent in agents:
        if agent.is_eval_agent and not include_eval_agents:
            hidden += 1
            continue
        moments = [
            m
            for m in (agent.last_seen_at, agent.last_thought_at, agent.last_percept_at)
            if m is not None
        ]
        rows.append(AgentRow(agent, max(moments) if moments else None))
    return rows, hidden


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


def actionable_counts(*, agent: Agent) -> tuple[int, int]:
    """The agent's unprocessed thoughts and, among them, the actionable ones
    (the actionable feed's log line). One query, answered from the partial
    index ``thought_unprocessed_idx`` alone (an index-only scan): both counts
    read only ``convert_eligible``, a column it holds."""
    counts = Thought.objects.filter(agent=agent, processed=False).aggregate(
        unprocessed=Count("*"),
        actionable=Count("convert_eligible", filter=Q(convert_eligible=True)),
    )
    return counts["unprocessed"], counts["actionable"]


def latest_snapshot(*, agent: Agent) -> WorldSnapshot | None:
    return (
        WorldSnapshot.objects.filter(agent=agent)
        .order_by("-received_at", "-pk")
        .first()
    )


# --- the publish path's reads -------------------------------------------------
# Each publish (a thought, a percept, a keep-alive step) makes these reads.
# In plain SQL (one UNION ALL statement) they bought 1.36-1.45x single
# thoughts/s through POST /thoughts and 0.98-1.07x in batches, with the
# deployed queue cap (``bench/fastpaths.py``): under the 1.5x a second
# implementation must earn, so they are the ORM's.


_STATEMENTS: dict[tuple[str, Hashable], Any] = {}


def cached_statement[T](key: Hashable, build: Callable[[], T]) -> T:
    """``build()``, made once per database vendor: the text of a statement
    (or its parts) built from the models' names, which only the vendor's
    quoting changes (the counters' update, ``stream.services.counters``)."""
    vendor_key = (connection.vendor, key)
    try:
        return _STATEMENTS[vendor_key]  # type: ignore[no-any-return]
    except KeyError:
        value = _STATEMENTS[vendor_key] = build()
        return value


def recent_content_hashes(*, agent: Agent, limit: int, exclude_type: str) -> set[str]:
    """The content hashes of the agent's newest ``limit`` thoughts that are not
    of ``exclude_type``."""
    return set(
        Thought.objects.filter(agent=agent)
        .exclude(type=exclude_type)
        .order_by("-created_at", "-pk")
        .values_list("content_hash", flat=True)[:limit]
    )


def queue_holds_more_than(*, agent: Agent, count: int) -> bool:
    """Whether the agent holds more than ``count`` thoughts; reads at most
    ``count + 1`` index entries."""
    return (
        Thought.objects.filter(agent=agent)
        .order_by()
        .values_list("pk")[count : count + 1]
        .exists()
    )


def publish_reads(
    *, agent: Agent, counter: str, facts: bool, hashes_limit: int, exclude_type: str
) -> tuple[Any, int | None, set[str]]:
    """What a publish reads before it writes: the facts document of the
    agent's newest snapshot (None when ``facts`` is false or there is no
    snapshot), its ``counter`` (None before its counters row exists) and
    ``recent_content_hashes`` (an empty set when ``hashes_limit`` is 0)."""
    document = None
    if facts:
        document = (
            WorldSnapshot.objects.filter(agent=agent)
            .order_by("-received_at", "-pk")
            .values_list("facts", flat=True)
            .first()
        )
    value = (
        AgencyCounters.objects.filter(agent=agent)
        .values_list(counter, flat=True)
        .first()
    )
    hashes = (
        recent_content_hashes(
            agent=agent, limit=hashes_limit, exclude_type=exclude_type
        )
        if hashes_limit > 0
        else set()
    )
    return document, value, hashes


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
