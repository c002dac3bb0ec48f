"""The publish path's reads, as cached plain statements.

Every publish (a thought, a batch, a percept's awareness) reads the agent's
newest facts, one counter and its newest content hashes before it writes,
and checks the queue cap after. Building the ORM's queries cost 5-10x
running them (about 2 ms of the ~7 ms of Python a single POST /thoughts
took on PostgreSQL, the check another 0.5 ms). Here each statement's text
is built once per database vendor from the models' names
(``stream.selectors.cached_statement``) and only run after. The ORM
queries in ``stream.selectors`` (``publish_reads``, ``recent_content_hashes``,
``queue_holds_more_than``) are the reference: the tests hold these to them
row for row (``tests/stream/test_selectors_publish.py``).
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Model

from stream.models import AgencyCounters, Agent, Thought, WorldSnapshot
from stream.selectors import cached_statement


def _names(model: type[Model], *fields: str) -> tuple[str, ...]:
    """The quoted table of ``model``, then the quoted column of each field."""
    quote = connection.ops.quote_name
    meta = model._meta
    return (
        quote(meta.db_table),
        *(quote(meta.get_field(name).column) for name in fields),
    )


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def queue_holds_more_than(*, agent: Agent, count: int) -> bool:
    """Whether the agent holds more than ``count`` thoughts; reads at most
    ``count + 1`` index entries (``Thought.objects.filter(agent=agent)
    .order_by().values_list("pk")[count:count + 1].exists()``)."""

    def build() -> str:
        table, pk, agent_id = _names(Thought, "id", "agent")
        return (
            f"SELECT {pk} FROM {table} WHERE {agent_id} = %s "  # noqa: S608
            "LIMIT 1 OFFSET %s"
        )

    sql = cached_statement("publish.queue_holds_more_than", build)
    return bool(_rows(sql, [agent.pk, count]))


def _publish_reads_sql(counter: str, *, facts: bool, hashes: bool) -> str:
    ws, ws_facts, ws_agent, ws_received, ws_pk = _names(
        WorldSnapshot, "facts", "agent", "received_at", "id"
    )
    ac, ac_counter, ac_agent = _names(AgencyCounters, counter, "agent")
    th, th_hash, th_agent, th_type, th_created, th_pk = _names(
        Thought, "content_hash", "agent", "type", "created_at", "id"
    )
    # Each part in its own subquery (SQLite allows ORDER BY and LIMIT only
    # on the whole compound otherwise), tagged by its first column.
    parts = [
        "SELECT 1 AS part, NULL AS facts, c.counter AS counter, "  # noqa: S608
        f"NULL AS hash FROM (SELECT {ac_counter} AS counter FROM {ac} "
        f"WHERE {ac_agent} = %s LIMIT 1) c"
    ]
    if facts:
        parts.append(
            "SELECT 0, f.facts, NULL, NULL FROM "  # noqa: S608
            f"(SELECT {ws_facts} AS facts FROM {ws} WHERE {ws_agent} = %s "
            f"ORDER BY {ws_received} DESC, {ws_pk} DESC LIMIT 1) f"
        )
    if hashes:
        parts.append(
            "SELECT 2, NULL, NULL, h.hash FROM "  # noqa: S608
            f"(SELECT {th_hash} AS hash FROM {th} "
            f"WHERE {th_agent} = %s AND NOT ({th_type} = %s) "
            f"ORDER BY {th_created} DESC, {th_pk} DESC LIMIT %s) h"
        )
    return " UNION ALL ".join(parts)


def publish_reads(
    *, agent: Agent, counter: str, facts: bool, hashes_limit: int, exclude_type: str
) -> tuple[Any, int | None, set[str]]:
    """What a publish reads before it writes, in one statement: the facts
    document of the agent's newest snapshot (None when ``facts`` is false or
    there is no snapshot), its ``counter`` (None before its counters row
    exists) and the content hashes of its newest ``hashes_limit`` thoughts
    not of ``exclude_type`` (an empty set when ``hashes_limit`` is 0);
    ``stream.selectors.publish_reads`` gives the same."""
    hashes = hashes_limit > 0
    sql = cached_statement(
        ("publish.reads", counter, facts, hashes),
        lambda: _publish_reads_sql(counter, facts=facts, hashes=hashes),
    )
    params: list[Any] = [agent.pk]
    if facts:
        params.append(agent.pk)
    if hashes:
        params += [agent.pk, exclude_type, hashes_limit]
    document: Any = None
    value: int | None = None
    found: set[str] = set()
    for part, raw_facts, raw_counter, content_hash in _rows(sql, params):
        if part == 0:
            field = WorldSnapshot._meta.get_field("facts")
            document = field.from_db_value(raw_facts, None, connection)
        elif part == 1:
            value = raw_counter
        else:
            found.add(content_hash)
    return document, value, found
