"""Storing published thoughts with their counter increments, all or nothing.

The ORM way is a transaction: the thoughts' INSERT (``Model.save`` for one,
``bulk_create`` for more), then the counters' ``UPDATE ... SET c = c + n``.
On PostgreSQL that is four round trips (BEGIN, INSERT, UPDATE, COMMIT; a
savepoint and its release inside an outer transaction), and building the
insert costs more than running it. There both writes are one statement:

    WITH c AS (UPDATE counters SET ... WHERE agent_id = ... RETURNING 1)
    INSERT INTO thought (...) SELECT * FROM (VALUES (...)) v
    WHERE EXISTS (SELECT 1 FROM c) RETURNING id

(``unnest`` of one array per column instead of ``VALUES`` for several
rows: measured beside each other, 100 rows took 12.4 ms against 20.8 ms for
a 100-row ``VALUES`` and 13.9 ms the ORM way; one row 1.7-2.0 ms against
2.1-2.5 ms with ``unnest`` and 2.3-2.7 ms the ORM way.)

One statement is one transaction (a savepoint inside an outer one, as
``transaction.atomic`` makes). The rows are inserted only if the counters
row was updated; when it is missing (before an agent's first publish made
it) nothing is written and the ORM way runs, which creates it. Elsewhere
(SQLite) a single thought's INSERT is the one ``Model.save`` sends, in
plain SQL. Each value goes through its field's ``pre_save`` and
``get_db_prep_save`` as the ORM's insert does, the ids come back in the
rows' order as ``bulk_create``'s do, and each instance ends as the ORM
leaves it (pk set, ``_state`` saved). With a ``pre_save``/``post_save``
receiver connected for thoughts, a single thought is saved by
``Model.save``, which sends them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models.signals import post_save, pre_save

from stream.models import AgencyCounters, Agent, Thought
from stream.selectors import cached_statement
from stream.services.counters import COUNTER_FIELDS, counters_increment


def thoughts_store(
    *, agent: Agent, thoughts: Sequence[Thought], increments: dict[str, int]
) -> None:
    """Insert ``thoughts`` (unsaved) and add ``increments`` to the agent's
    counters, in one transaction; sets each thought's pk."""
    unknown = set(increments) - set(COUNTER_FIELDS)
    if unknown:
        raise ValueError(f"unknown counters: {sorted(unknown)}")
    updates = {name: n for name, n in increments.items() if n}
    # Model.save sends pre_save and post_save (bulk_create sends neither):
    # with a receiver connected, a single thought is saved the ORM way.
    plain = len(thoughts) > 1 or not (
        pre_save.has_listeners(Thought) or post_save.has_listeners(Thought)
    )
    if thoughts and updates and plain and connection.vendor == "postgresql":
        if connection.in_atomic_block:
            with transaction.atomic():
                stored = _insert_counted(agent, thoughts, updates)
        else:
            stored = _insert_counted(agent, thoughts, updates)
        if stored:
            return
    with transaction.atomic():
        if len(thoughts) > 1:
            Thought.objects.bulk_create(thoughts)
        elif thoughts and plain and connection.features.can_return_columns_from_insert:
            _insert_one(thoughts[0])
        elif thoughts:
            thoughts[0].save()
        counters_increment(agent=agent, **increments)


# What Model.save inserts for a new thought: every column but the id.
_INSERTED = [
    f for f in Thought._meta.local_concrete_fields if f is not Thought._meta.auto_field
]


def _insert_counted_sql(updates: dict[str, int], *, many: bool) -> str:
    """The statement for one row (``VALUES``) or for several: then each
    column's values come as one array, cast to its column's type
    (``unnest`` yields the rows in the arrays' order). One text per set of
    counters, short enough for psycopg to keep its parse: a placeholder per
    value made it re-parse 1,400 for a batch of 100. Each value is cast to
    its column's type (a NULL alone in ``VALUES`` would be text)."""
    quote = connection.ops.quote_name
    counters = AgencyCounters._meta
    assignments = ", ".join(
        f"{column} = {column} + %s"
        for column in (quote(counters.get_field(name).column) for name in updates)
    )
    meta = Thought._meta
    casts = [f"%s::{field.cast_db_type(connection)}" for field in _INSERTED]
    rows = (
        f"unnest({', '.join(cast + '[]' for cast in casts)})"
        if many
        else f"(VALUES ({', '.join(casts)}))"
    )
    return (
        f"WITH c AS (UPDATE {quote(counters.db_table)} SET {assignments} "  # noqa: S608
        f"WHERE {quote(counters.get_field('agent').column)} = %s RETURNING 1) "
        f"INSERT INTO {quote(meta.db_table)} "
        f"({', '.join(quote(f.column) for f in _INSERTED)}) "
        f"SELECT * FROM {rows} AS v "
        f"WHERE EXISTS (SELECT 1 FROM c) RETURNING {quote(meta.pk.column)}"
    )


def _insert_counted(
    agent: Agent, thoughts: Sequence[Thought], updates: dict[str, int]
) -> bool:
    """The one-statement write; False (nothing written) when the agent has
    no counters row."""
    many = len(thoughts) > 1
    sql = cached_statement(
        ("thoughts_store", many, *updates),
        lambda: _insert_counted_sql(updates, many=many),
    )
    db = connections[DEFAULT_DB_ALIAS]  # the wrapper itself, not the proxy
    rows = [_values(thought, db) for thought in thoughts]
    # One row: its values; more: one list of values per column.
    values = [list(column) for column in zip(*rows, strict=True)] if many else rows[0]
    with db.cursor() as cursor:
        cursor.execute(sql, [*updates.values(), agent.pk, *values])
        ids = [r[0] for r in cursor.fetchall()]
    if not ids:
        return False
    for thought, pk in zip(thoughts, ids, strict=True):
        _saved(thought, pk, db)
    return True


def _insert_one(thought: Thought) -> None:
    """What ``thought.save()`` sends for a new thought: ``INSERT ... RETURNING``
    the id."""

    def build() -> str:
        quote = connection.ops.quote_name
        meta = Thought._meta
        return (
            f"INSERT INTO {quote(meta.db_table)} "  # noqa: S608
            f"({', '.join(quote(f.column) for f in _INSERTED)}) "
            f"VALUES ({', '.join(['%s'] * len(_INSERTED))}) "
            f"RETURNING {quote(meta.pk.column)}"
        )

    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(cached_statement("thought_insert", build), _values(thought, db))
        (pk,) = cursor.fetchone()
    _saved(thought, pk, db)


def _values(thought: Thought, db: Any) -> list[Any]:
    """The row of an unsaved thought as the ORM's insert prepares it."""
    thought._prepare_related_fields_for_save(operation_name="save")
    return [
        field.get_db_prep_save(field.pre_save(thought, True), db) for field in _INSERTED
    ]


def _saved(thought: Thought, pk: Any, db: Any) -> None:
    """The thought as the ORM leaves it once inserted."""
    thought.pk = pk
    thought._state.adding = False
    thought._state.db = db.alias
