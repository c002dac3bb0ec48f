"""A BRIN index on the thoughts' ``created_at``, on PostgreSQL only.

Retention's sweep reads the thoughts older than a cutoff, across agents, in
primary-key order. With no index on the time (0011 dropped the B-tree, which
the planner walked for one agent's feed), a sweep that finds nothing to
delete read the whole table every hour. A block-range index answers that
range at a tiny fraction of a B-tree's size, and cannot be walked in order,
so the planner never takes it for a feed (the plan tests check both). It is
built ``CONCURRENTLY`` (writes go on), which cannot run inside a
transaction: this migration is not atomic; an index an interrupted build
left invalid is dropped and built again on the rerun. SQLite has no BRIN:
nothing happens there. The index is not part of the model's state, so
``makemigrations`` never asks to drop it.
"""

from django.db import migrations

INDEX = "thought_created_brin"


def create_brin(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_index JOIN pg_class ON pg_class.oid = indexrelid "
            "WHERE relname = %s AND NOT indisvalid",
            [INDEX],
        )
        if cursor.fetchone() is not None:
            schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} "
        "ON stream_thought USING brin (created_at)"
    )


def drop_brin(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("stream", "0011_feeds_walk_their_agent")]

    operations = [
        migrations.RunPython(create_brin, drop_brin, elidable=False),
    ]
