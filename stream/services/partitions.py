"""The thoughts table partitioned by month on PostgreSQL (docs/retention.md).

``conversion_now`` reads the live table and gives the SQL of the next
conversion (``stream.core.partitions``): to partitioned, or back to plain
when it is partitioned already. ``convert`` runs it: the new table and the
change-noting trigger in one transaction, the copy in batches of ids (each
its own transaction), then the replay and the swap of names in one short
one. ``partitions_ahead`` (beat, daily) creates the coming months'
partitions. Nothing here runs on SQLite.
"""

# ruff: noqa: S608 - the SQL names only the catalog's own tables and indexes
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from stream.core.partitions import (
    Conversion,
    ForeignKeyIn,
    TableFacts,
    conversion,
    months_ahead,
    months_expired,
    partition_name,
    partition_sql,
)
from stream.models import Thought

logger = logging.getLogger(__name__)

TABLE = Thought._meta.db_table
# What a conversion leaves beside the live table (the old one, renamed).
LEFT_BEHIND = (f"{TABLE}_unpartitioned", f"{TABLE}_partitioned")


class PartitioningRefused(Exception):
    """The conversion cannot start; the message says why and what to do."""


def _rows(sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def is_partitioned(table: str = TABLE) -> bool:
    if connection.vendor != "postgresql":
        return False
    return bool(
        _rows(
            "SELECT 1 FROM pg_partitioned_table p JOIN pg_class c "
            "ON c.oid = p.partrelid WHERE c.relname = %s "
            "AND c.relnamespace = current_schema()::regnamespace",
            (table,),
        )
    )


def _fks_in_from_models(table: str) -> tuple[ForeignKeyIn, ...]:
    """The foreign keys the models declare towards ``table`` (a partitioned
    table has none in the database: these are what going back restores)."""
    found = []
    for relation in Thought._meta.related_objects:
        field = relation.field
        if field.many_to_one and getattr(field, "db_constraint", False):
            other = relation.related_model._meta.db_table
            column = field.column
            found.append(
                ForeignKeyIn(
                    table=other, name=f"{other}_{column}_fk_{table}_id", column=column
                )
            )
    return tuple(found)


def table_facts(table: str = TABLE) -> TableFacts:
    """What ``stream.core.partitions.conversion`` needs, read off the catalog."""
    if connection.vendor != "postgresql":
        raise PartitioningRefused("partitioning needs PostgreSQL")
    partitioned = is_partitioned(table)
    oid = "%s::regclass"
    indexes = _rows(
        "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid "
        f"WHERE i.indrelid = {oid} AND NOT i.indisprimary ORDER BY c.relname",
        (table,),
    )
    pk = _rows(
        f"SELECT conname FROM pg_constraint WHERE conrelid = {oid} AND contype = 'p'",
        (table,),
    )
    fks_out = _rows(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        f"WHERE conrelid = {oid} AND contype = 'f' ORDER BY conname",
        (table,),
    )
    fks_in = _rows(
        "SELECT c.conrelid::regclass::text, c.conname, a.attname "
        "FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid "
        f"AND a.attnum = c.conkey[1] WHERE c.confrelid = {oid} AND c.contype = 'f' "
        "AND c.conrelid <> c.confrelid ORDER BY 1, 2",
        (table,),
    )
    ((sequence, first, max_id),) = _rows(
        f"SELECT pg_get_serial_sequence(%s, 'id'), MIN(created_at), "
        f"COALESCE(MAX(id), 0) FROM {connection.ops.quote_name(table)}",
        (table,),
    )
    return TableFacts(
        table=table,
        partitioned=partitioned,
        indexes=tuple((str(n), str(d)) for n, d in indexes),
        pk_name=str(pk[0][0]) if pk else f"{table}_pkey",
        fks_out=tuple((str(n), str(d)) for n, d in fks_out),
        fks_in=(
            _fks_in_from_models(table)
            if partitioned
            else tuple(ForeignKeyIn(str(t), str(n), str(c)) for t, n, c in fks_in)
        ),
        sequence=str(sequence) if sequence else None,
        first_month=first.date() if first is not None else None,  # type: ignore[attr-defined]
        max_id=int(max_id),  # type: ignore[call-overload]
    )


def conversion_now(today: date | None = None) -> tuple[TableFacts, Conversion]:
    facts = table_facts()
    plan = conversion(
        facts,
        today=today or timezone.now().date(),
        ahead=settings.STREAM_THOUGHT_PARTITIONS_AHEAD,
    )
    return facts, plan


def plan_text(facts: TableFacts, plan: Conversion, *, batch: int) -> str:
    """The conversion as a script a person can read (and run by hand)."""
    lines = [
        f"-- {facts.table}: {'partitioned' if facts.partitioned else 'plain'} "
        f"-> {plan.target}; ids up to {facts.max_id}",
        "-- 1. one transaction: the new table and a trigger noting changed ids",
        "BEGIN;",
        *(f"{sql};" for sql in plan.prepare),
        "COMMIT;",
        f"-- 2. for lo = 0, {batch}, {2 * batch}, ... up to {facts.max_id}: "
        "one transaction each",
        plan.copy_batch.replace("%(lo)s", ":lo").replace("%(hi)s", ":lo + batch") + ";",
        "-- 3. one short transaction: replay the noted ids, swap the names",
        "BEGIN;",
        *(f"{sql};" for sql in plan.swap),
        "COMMIT;",
        f"ANALYZE {facts.table};",
        f"-- the old table stays as {plan.old_name} "
        "(partition_thoughts --drop-old removes it)",
    ]
    return "\n".join(lines)


def _refuse_unless_ready(facts: TableFacts, plan: Conversion) -> None:
    if plan.target == "partitioned" and not settings.STREAM_THOUGHT_PARTITIONING:
        raise PartitioningRefused(
            "STREAM_THOUGHT_PARTITIONING is off: turn it on for every web and "
            "worker process, then run the conversion"
        )
    for left in LEFT_BEHIND:
        if _rows("SELECT to_regclass(%s)", (left,))[0][0] is not None:
            raise PartitioningRefused(
                f"{left} is left from an earlier conversion: check it, "
                "then remove it with --drop-old"
            )
    if _rows("SELECT to_regclass(%s)", (plan.new_table,))[0][0] is not None:
        raise PartitioningRefused(
            f"{plan.new_table} exists: an earlier conversion stopped half-way; "
            "run --abort to remove what it left"
        )


def convert(*, batch: int, report: Callable[[str], None] = logger.info) -> Conversion:
    """Run the next conversion (to partitioned, or back to plain)."""
    facts, plan = conversion_now()
    _refuse_unless_ready(facts, plan)
    started = time.monotonic()
    with transaction.atomic():
        for sql in plan.prepare:
            _rows_none(sql)
    # Read after the trigger exists: every later write is noted by id.
    top = table_facts().max_id
    copied = 0
    for lo in range(0, top + 1, batch):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(plan.copy_batch, {"lo": lo, "hi": lo + batch})
            copied += max(cursor.rowcount, 0)
        report(f"copied {copied} rows (ids below {lo + batch} of {top})")
    swap_started = time.monotonic()
    with transaction.atomic():
        for sql in plan.swap:
            _rows_none(sql)
    swap_ms = (time.monotonic() - swap_started) * 1000
    _rows_none(f"ANALYZE {facts.table}")
    seconds = time.monotonic() - started
    report(
        f"{facts.table} is {plan.target}: {copied} rows copied in {seconds:.1f} s, "
        f"the swap held the table {swap_ms:.0f} ms; the old table is {plan.old_name}"
    )
    logger.info(
        "[Retention] thoughts_converted target=%s rows=%s seconds=%.1f swap_ms=%.0f",
        plan.target,
        copied,
        seconds,
        swap_ms,
    )
    return plan


def _rows_none(sql: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql)


def abort() -> list[str]:
    """Remove what a conversion stopped half-way left (the new table, the
    trigger and its change log); the live table is untouched."""
    facts, plan = conversion_now()
    done = []
    with transaction.atomic():
        for sql in (
            f"DROP TRIGGER IF EXISTS {facts.table}_note_change ON {facts.table}",
            f"DROP FUNCTION IF EXISTS {facts.table}_note_change()",
            f"DROP TABLE IF EXISTS {facts.table}_changes",
            f"DROP TABLE IF EXISTS {plan.new_table} CASCADE",
        ):
            _rows_none(sql)
            done.append(sql)
    return done


def drop_old() -> str | None:
    """Drop the table an earlier conversion left; returns its name."""
    for name in LEFT_BEHIND:
        if _rows("SELECT to_regclass(%s)", (name,))[0][0] is not None:
            _rows_none(f"DROP TABLE {name} CASCADE")
            return name
    return None


def partitions_ahead(today: date | None = None) -> list[str]:
    """Create this month's and the next ``STREAM_THOUGHT_PARTITIONS_AHEAD``
    months' partitions that are missing; returns their names. Nothing when
    the setting is off or the table is not partitioned."""
    if not settings.STREAM_THOUGHT_PARTITIONING or connection.vendor != "postgresql":
        return []
    if not is_partitioned():
        logger.warning(
            "[Retention] partitioning_pending table=%s "
            "reason=STREAM_THOUGHT_PARTITIONING is on and the table is plain "
            "(run manage.py partition_thoughts --apply)",
            TABLE,
        )
        return []
    created = []
    today = today or timezone.now().date()
    for month in months_ahead(today, settings.STREAM_THOUGHT_PARTITIONS_AHEAD):
        name = partition_name(TABLE, month)
        if _rows("SELECT to_regclass(%s)", (name,))[0][0] is not None:
            continue
        try:
            with transaction.atomic():
                _rows_none(partition_sql(TABLE, TABLE, month))
        except DatabaseError as exc:  # the default partition holds rows of it
            logger.error("[Retention] partition_refused name=%s reason=%s", name, exc)
            continue
        created.append(name)
        logger.info("[Retention] partition_created name=%s", name)
    return created


def partitions_expired(now: datetime | None = None) -> list[str]:
    """Drop the monthly partitions whose whole month is older than the
    thoughts' retention (``THOUGHT_RETENTION_DAYS``, and never sooner than
    the queue policy's ages): every row in them is one the hourly sweep
    deletes, and fewer partitions keep the feeds' reads short. Tasks that
    pointed at their thoughts keep going without them. Returns the names;
    nothing when retention is 0 or the table is not partitioned."""
    days = settings.THOUGHT_RETENTION_DAYS
    if days <= 0 or not settings.STREAM_THOUGHT_PARTITIONING or not is_partitioned():
        return []
    keep = max(
        timedelta(days=days),
        timedelta(seconds=settings.STREAM_PROCESSED_MAX_AGE_S),
        timedelta(seconds=settings.STREAM_ACTIONABLE_MAX_AGE_S),
        timedelta(seconds=settings.STREAM_OTHER_MAX_AGE_S),
    )
    cutoff = ((now or timezone.now()) - keep).date()
    children = [
        str(name)
        for (name,) in _rows(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = %s::regclass",
            (TABLE,),
        )
    ]
    task_table = Thought._meta.get_field("tasks").related_model._meta.db_table
    dropped = []
    for name in months_expired(children, table=TABLE, cutoff=cutoff):
        with transaction.atomic():
            _rows_none(
                f"UPDATE {task_table} SET thought_id = NULL "
                f"WHERE thought_id IN (SELECT id FROM {name})"
            )
            _rows_none(f"ALTER TABLE {TABLE} DETACH PARTITION {name}")
            _rows_none(f"DROP TABLE {name}")
        dropped.append(name)
        logger.info("[Retention] partition_dropped name=%s", name)
    return dropped
