"""Agency counters (the agency contract §5): monotonic per agent, reset only
explicitly."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from core.times import epoch_ms
from stream.models import AgencyCounters, Agent, Thought
from stream.selectors import cached_statement

logger = logging.getLogger(__name__)

COUNTER_FIELDS = (
    "llm_calls",
    "goal_tags",
    "drive_ticks",
    "signature_suppressions",
    "content_suppressions",
    "intent_extractions",
    "low_novelty_recorded",
    "low_novelty_broadcast",
)
WIRE_NAMES = {
    "llm_calls": "llmCalls",
    "goal_tags": "goalTags",
    "drive_ticks": "driveTicks",
    "signature_suppressions": "signatureSuppressions",
    "content_suppressions": "contentSuppressions",
    "intent_extractions": "intentExtractions",
    "low_novelty_recorded": "lowNoveltyRecorded",
    "low_novelty_broadcast": "lowNoveltyBroadcast",
}


def counters_get(*, agent: Agent) -> AgencyCounters:
    counters, _ = AgencyCounters.objects.get_or_create(
        agent=agent, defaults={"started_at": timezone.now()}
    )
    return counters


def counters_increment(*, agent: Agent, **amounts: int) -> None:
    """Add to counters atomically (``UPDATE ... SET c = c + n``, safe under
    concurrency): ``counters_add_stored`` with no thoughts stored."""
    if any(amounts.values()):
        counters_add_stored(agent=agent, stored=0, **amounts)


def _stored_sql(names: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    meta = AgencyCounters._meta
    held = quote(meta.get_field("queue_held").column)
    columns = [quote(meta.get_field(name).column) for name in names]
    assignments = "".join(f", {column} = {column} + %s" for column in columns)
    agent_id = quote(meta.get_field("agent").column)
    return (
        f"UPDATE {quote(meta.db_table)} SET {held} = {held} + %s"  # noqa: S608
        f"{assignments} WHERE {agent_id} = %s RETURNING {held}"
    )


def counters_add_stored(*, agent: Agent, stored: int, **amounts: int) -> int | None:
    """What a publish adds, in one atomic ``UPDATE ... RETURNING`` run in
    the publish's transaction (plain SQL: every publish makes it, and
    building the ORM update cost 10x running it): ``stored`` thoughts to the agent's
    ``queue_held`` and ``amounts`` to its counters. Returns the new
    ``queue_held``, ``None`` while it is unknown (a new counters row)."""
    unknown = set(amounts) - set(COUNTER_FIELDS)
    if unknown:
        raise ValueError(f"unknown counters: {sorted(unknown)}")
    names = tuple(name for name, n in amounts.items() if n)
    params = [stored, *(amounts[name] for name in names), agent.pk]
    sql = cached_statement(("counters_stored", *names), lambda: _stored_sql(names))
    for _ in range(2):
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is not None:
            return None if row[0] is None else int(row[0])
        counters_get(agent=agent)  # no row yet: made, then added to
    raise RuntimeError("the agent's counters row was deleted while publishing")


@contextmanager
def queue_held_locked(*, agent: Agent) -> Iterator[None]:
    """A transaction with the agent's counters row locked. A publish adds
    to ``queue_held`` in its own transaction through that row, so it waits
    while this one counts or prunes, and a publish whose thoughts this one
    cannot see yet (not committed) adds them after: what ``queue_held_count``
    and ``queue_held_drop`` leave never falls below the queue's size."""
    counters_get(agent=agent)
    with transaction.atomic():
        list(
            AgencyCounters.objects.select_for_update()
            .filter(agent=agent)
            .values_list("pk")
        )
        yield


def queue_held_count(*, agent: Agent, cap: int) -> int:
    """Within ``queue_held_locked``: set the agent's ``queue_held`` to the
    thoughts it holds, counting at most ``cap + 1`` index entries (a queue
    past that is held as ``cap + 1``, over the cap, so the next publish
    checks again); returns the value set."""
    held = Thought.objects.filter(agent=agent).order_by().values("pk")[: cap + 1]
    value = held.count()
    AgencyCounters.objects.filter(agent=agent).update(queue_held=value)
    return value


def queue_held_drop(*, agent: Agent, count: int) -> None:
    """Within ``queue_held_locked``: take ``count`` thoughts a prune deleted
    off the agent's ``queue_held`` (``SET queue_held = queue_held - count``):
    a value that was not below the queue's size stays so, with no count."""
    if count:
        AgencyCounters.objects.filter(agent=agent).update(
            queue_held=F("queue_held") - count
        )


def queue_held_forget(*, agents: Iterable[Agent] | None = None) -> int:
    """Mark ``queue_held`` unknown (every agent's when ``agents`` is None),
    after thoughts were written other than by a publish (a bulk load), so
    each agent's next publish counts its queue again."""
    rows = AgencyCounters.objects.all()
    if agents is not None:
        rows = rows.filter(agent__in=list(agents))
    return rows.update(queue_held=None)


def counters_reset(*, agent: Agent, now: datetime | None = None) -> AgencyCounters:
    """The only way counters go down (resetAgencyCounters)."""
    counters = counters_get(agent=agent)
    AgencyCounters.objects.filter(pk=counters.pk).update(
        **{name: 0 for name in COUNTER_FIELDS}, started_at=now or timezone.now()
    )
    counters.refresh_from_db()
    logger.info("[Agency] counters_reset agent=%s", agent.name)
    return counters


def counters_to_wire(counters: AgencyCounters, *, now: datetime) -> dict[str, object]:
    body: dict[str, object] = {
        WIRE_NAMES[name]: getattr(counters, name) for name in COUNTER_FIELDS
    }
    body["startedAt"] = counters.started_at.isoformat()
    body["startedAtMs"] = epoch_ms(counters.started_at)
    body["uptimeMin"] = int((now - counters.started_at).total_seconds() // 60)
    return body


def counters_log_line(counters: AgencyCounters, *, now: datetime) -> None:
    uptime = int((now - counters.started_at).total_seconds() // 60)
    logger.info(
        "[Agency %sm] llm=%s goals=%s drives=%s sigDedup=%s contentDedup=%s intents=%s",
        uptime,
        counters.llm_calls,
        counters.goal_tags,
        counters.drive_ticks,
        counters.signature_suppressions,
        counters.content_suppressions,
        counters.intent_extractions,
        extra={"agent": counters.agent.name, "uptime_min": uptime},
    )


def counters_log_all(*, now: datetime | None = None) -> int:
    """Log every active agent's counters line; returns how many were logged."""
    now = now or timezone.now()
    rows = AgencyCounters.objects.select_related("agent").filter(agent__is_active=True)
    count = 0
    for counters in rows:
        counters_log_line(counters, now=now)
        count += 1
    return count
