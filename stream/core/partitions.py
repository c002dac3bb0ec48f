"""Monthly range partitioning of the thoughts table on PostgreSQL: the SQL
of a conversion, from facts read off the live table (``TableFacts``).

A conversion builds the new table beside the old one (``prepare``), copies
the rows over in batches by primary-key range (``copy_batch``, each batch its
own transaction), then in one short transaction replays the rows written
meanwhile, which a trigger noted by id, and swaps the names (``swap``). The
old table stays under ``<table>_unpartitioned`` until dropped.

PostgreSQL asks that a partitioned table's primary key and unique indexes
hold the partition key: the key becomes ``(id, created_at)``, a unique
index gains ``created_at``, and a foreign key can no longer point at the
table (the ones that did are dropped, ``fks_in``). Going back (``revert``)
builds a plain table the same way and puts those foreign keys back.
"""

# ruff: noqa: S608 - every name here is the table's own, read from the catalog
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

PG_NAME_MAX = 63
PARTITION_KEY = "created_at"
_INDEXDEF = re.compile(
    r"^CREATE (?P<unique>UNIQUE )?INDEX (?P<name>\S+) ON (?:ONLY )?(?P<table>\S+) "
    r"USING (?P<rest>.*)$",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class ForeignKeyIn:
    """A foreign key of another table that points at the thoughts table."""

    table: str
    name: str
    column: str


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What a conversion needs to know of the live table."""

    table: str
    partitioned: bool
    # (name, pg_indexes.indexdef) of every index but the primary key's.
    indexes: tuple[tuple[str, str], ...]
    pk_name: str
    # (name, pg_get_constraintdef) of the table's own foreign keys.
    fks_out: tuple[tuple[str, str], ...]
    fks_in: tuple[ForeignKeyIn, ...]
    sequence: str | None
    first_month: date | None
    max_id: int


@dataclass(frozen=True, slots=True)
class Conversion:
    """The statements of one conversion, in order. ``copy_batch`` takes the
    parameters ``lo`` and ``hi`` (ids ``lo <= id < hi``)."""

    target: str  # "partitioned" or "plain"
    new_table: str
    old_name: str
    prepare: tuple[str, ...]
    copy_batch: str
    swap: tuple[str, ...]


def pg_name(base: str, suffix: str) -> str:
    """``base + suffix`` cut to PostgreSQL's 63-character identifiers."""
    return base[: PG_NAME_MAX - len(suffix)] + suffix


def month_start(day: date) -> date:
    return day.replace(day=1)


def next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def months(first: date, last: date) -> list[date]:
    """The first day of every month from ``first``'s to ``last``'s."""
    found, month = [], month_start(first)
    while month <= last:
        found.append(month)
        month = next_month(month)
    return found


def months_ahead(today: date, ahead: int) -> list[date]:
    """This month and the ``ahead`` months after it."""
    last = month_start(today)
    for _ in range(ahead):
        last = next_month(last)
    return months(today, last)


def partition_name(table: str, month: date) -> str:
    return f"{table}_p{month:%Y%m}"


def months_expired(names: list[str], *, table: str, cutoff: date) -> list[str]:
    """The monthly partitions among ``names`` whose whole month lies before
    ``cutoff`` (the default partition and other tables are never among them)."""
    found = []
    for name in sorted(names):
        match = re.fullmatch(rf"{re.escape(table)}_p(\d{{4}})(\d{{2}})", name)
        if match and 1 <= int(match[2]) <= 12:
            month = date(int(match[1]), int(match[2]), 1)
            if next_month(month) <= cutoff:
                found.append(name)
    return found


def partition_sql(table: str, parent: str, month: date) -> str:
    """One month's partition of ``parent``, named after ``table`` (UTC
    bounds; the upper bound is the next month's first instant, exclusive)."""
    return (
        f"CREATE TABLE IF NOT EXISTS {partition_name(table, month)} "
        f"PARTITION OF {parent} FOR VALUES FROM ('{month:%Y-%m-%d} 00:00:00+00') "
        f"TO ('{next_month(month):%Y-%m-%d} 00:00:00+00')"
    )


def _column_list_end(rest: str) -> int:
    """Where the index's column list closes in ``btree (a, (b + 1)) ...``."""
    depth = 0
    for at, char in enumerate(rest):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at
    raise ValueError(f"no column list in index definition: {rest!r}")


def rewrite_index(indexdef: str, *, name: str, table: str, add_key: bool) -> str:
    """``indexdef`` (as ``pg_indexes`` writes it) made for ``table`` under
    ``name``; a unique index gains the partition key when ``add_key``."""
    match = _INDEXDEF.match(indexdef)
    if match is None:
        raise ValueError(f"not an index definition: {indexdef!r}")
    rest = match["rest"]
    if match["unique"] and add_key:
        end = _column_list_end(rest)
        columns = rest[rest.index("(") + 1 : end]
        if PARTITION_KEY not in re.split(r"[\s,()]+", columns):
            rest = f"{rest[:end]}, {PARTITION_KEY}{rest[end:]}"
    return f"CREATE {match['unique'] or ''}INDEX {name} ON {table} USING {rest}"


def _trigger_sql(table: str) -> tuple[str, ...]:
    log, function = f"{table}_changes", f"{table}_note_change"
    return (
        f"CREATE TABLE {log} (id bigint NOT NULL)",
        f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN IF TG_OP = 'DELETE' THEN INSERT INTO {log} VALUES (OLD.id); "
        f"ELSE INSERT INTO {log} VALUES (NEW.id); END IF; RETURN NULL; END $$",
        f"CREATE TRIGGER {function} AFTER INSERT OR UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {function}()",
    )


def conversion(facts: TableFacts, *, today: date, ahead: int) -> Conversion:
    """The statements that turn the plain table into one partitioned by
    month (or, when it is partitioned already, back into a plain one)."""
    table = facts.table
    to_partitioned = not facts.partitioned
    target = "partitioned" if to_partitioned else "plain"
    new = f"{table}_part" if to_partitioned else f"{table}_plain"
    old_name = f"{table}_unpartitioned" if to_partitioned else f"{table}_partitioned"
    key = f"(id, {PARTITION_KEY})" if to_partitioned else "(id)"
    prepare = [
        f"CREATE TABLE {new} (LIKE {table} INCLUDING DEFAULTS INCLUDING "
        f"CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS)"
        + (f" PARTITION BY RANGE ({PARTITION_KEY})" if to_partitioned else ""),
        f"ALTER TABLE {new} ADD CONSTRAINT {pg_name(new, '_pkey')} PRIMARY KEY {key}",
    ]
    prepare += [
        f"ALTER TABLE {new} ADD CONSTRAINT {name} {definition}"
        for name, definition in facts.fks_out
    ]
    if to_partitioned:
        first = facts.first_month or today
        prepare += [
            partition_sql(table, new, month)
            for month in months(first, months_ahead(today, ahead)[-1])
        ]
        prepare.append(
            f"CREATE TABLE IF NOT EXISTS {table}_pdefault PARTITION OF {new} DEFAULT"
        )
    prepare += [
        rewrite_index(
            indexdef, name=pg_name(name, "_new"), table=new, add_key=to_partitioned
        )
        for name, indexdef in facts.indexes
    ]
    prepare += _trigger_sql(table)
    return Conversion(
        target=target,
        new_table=new,
        old_name=old_name,
        prepare=tuple(prepare),
        copy_batch=(
            f"INSERT INTO {new} SELECT * FROM {table} "
            "WHERE id >= %(lo)s AND id < %(hi)s"
        ),
        swap=_swap(facts, new=new, old_name=old_name, to_partitioned=to_partitioned),
    )


def _swap(
    facts: TableFacts, *, new: str, old_name: str, to_partitioned: bool
) -> tuple[str, ...]:
    table, log = facts.table, f"{facts.table}_changes"
    swap = [
        "SET LOCAL lock_timeout = '10s'",
        f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE",
        f"DELETE FROM {new} WHERE id IN (SELECT id FROM {log})",
        f"INSERT INTO {new} SELECT * FROM {table} "
        f"WHERE id IN (SELECT DISTINCT id FROM {log})",
        f"DROP TRIGGER {table}_note_change ON {table}",
        f"DROP FUNCTION {table}_note_change()",
        f"DROP TABLE {log}",
    ]
    if facts.sequence:
        # Ids are never handed out twice (a pruned thought's id stays gone).
        swap.append(
            f"SELECT setval(pg_get_serial_sequence('{new}', 'id'), GREATEST("
            f"(SELECT last_value FROM {facts.sequence}), "
            f"(SELECT COALESCE(MAX(id), 1) FROM {table})))"
        )
    if to_partitioned:
        swap += [
            f"ALTER TABLE {fk.table} DROP CONSTRAINT {fk.name}" for fk in facts.fks_in
        ]
    swap += [
        f"ALTER TABLE {table} RENAME TO {old_name}",
        f"ALTER INDEX {facts.pk_name} RENAME TO {pg_name(old_name, '_pkey')}",
    ]
    swap += [
        f"ALTER INDEX {name} RENAME TO {pg_name(name, '_old')}"
        for name, _ in facts.indexes
    ]
    swap += [
        f"ALTER TABLE {new} RENAME TO {table}",
        f"ALTER INDEX {pg_name(new, '_pkey')} RENAME TO {pg_name(table, '_pkey')}",
    ]
    swap += [
        f"ALTER INDEX {pg_name(name, '_new')} RENAME TO {name}"
        for name, _ in facts.indexes
    ]
    if facts.sequence:
        schema, _, seq = facts.sequence.rpartition(".")
        prefix = f"{schema}." if schema else ""
        swap += [
            f"ALTER SEQUENCE {facts.sequence} RENAME TO {pg_name(old_name, '_id_seq')}",
            f"ALTER SEQUENCE {prefix}{pg_name(new, '_id_seq')} RENAME TO {seq}",
        ]
    if not to_partitioned:
        swap += [
            f"UPDATE {fk.table} SET {fk.column} = NULL WHERE {fk.column} IS NOT NULL "
            f"AND NOT EXISTS (SELECT 1 FROM {table} t "
            f"WHERE t.id = {fk.table}.{fk.column})"
            for fk in facts.fks_in
        ]
        swap += [
            f"ALTER TABLE {fk.table} ADD CONSTRAINT {fk.name} FOREIGN KEY "
            f"({fk.column}) REFERENCES {table} (id) DEFERRABLE INITIALLY DEFERRED"
            for fk in facts.fks_in
        ]
    return tuple(swap)
