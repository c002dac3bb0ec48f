"""A BRIN index on the spans' start time, on PostgreSQL only.

Spans arrive roughly in time order, so a block-range index answers
time-range scans (the pages' filters, retention's deletes) at a tiny
fraction of a B-tree's size, even at 10 million rows. It is built
``CONCURRENTLY`` (writes go on while it builds), which cannot run inside a
transaction: this migration is not atomic. ``IF NOT EXISTS`` makes a rerun
after an interrupted build safe. SQLite has no BRIN: nothing happens there
(the B-tree ``span_started_idx`` of 0001 serves it). The index is not part
of the model's state, so ``makemigrations`` never asks to drop it.
"""

from django.db import migrations

INDEX = "span_started_brin"


def create_brin(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} "
        "ON traces_span USING brin (started_at)"
    )


def drop_brin(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("traces", "0002_shipped_prices")]

    operations = [
        migrations.RunPython(create_brin, drop_brin, elidable=False),
    ]
