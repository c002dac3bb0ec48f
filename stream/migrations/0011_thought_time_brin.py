"""The thoughts lose their single-column B-tree on ``created_at``.

Why: the feeds read one agent's newest thoughts (``agent_id = ? AND
broadcast ORDER BY created_at DESC, id DESC LIMIT n``). With a B-tree on
``created_at`` alone, PostgreSQL rates walking it backwards as the cheapest
way to get rows already in order (the table is in time order, so that index
looks perfectly correlated) and discards every newer thought of every other
agent on the way: the cost grew with other agents' traffic. Without it, the
agent's own partial index (``thought_recent_idx``, ``thought_actionable_idx``)
is the only ordered path, and a feed read touches a few index pages whatever
the table holds. Every read by time also filters by agent, and the
``(agent, -created_at, -id)`` indexes serve those.

On PostgreSQL a BRIN index on ``created_at`` takes its place for reads by
time across agents (retention's sweeps, the health window): a block-range
index is tiny on an append-ordered table and cannot be walked in order, so
the planner never picks it for a feed. Both steps run ``CONCURRENTLY`` (writes
go on; no step can run inside a transaction, so the migration is not atomic)
and ``IF [NOT] EXISTS`` makes a rerun after an interruption safe. SQLite has
no BRIN: there the B-tree is dropped. The BRIN is not part of the model's
state, so ``makemigrations`` never asks to drop it.
"""

from django.db import migrations, models

TABLE = "stream_thought"
BRIN = "thought_created_brin"
# The name Django gave ``created_at``'s ``db_index`` in 0001; going back
# recreates it under that name.
BTREE = "stream_thought_created_at_6ae26f5e"


def created_at_btrees(schema_editor) -> list[str]:
    """The names of the single-column B-trees on ``created_at`` (one, unless
    someone renamed it)."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, TABLE)
    return sorted(
        name
        for name, info in constraints.items()
        if info["index"]
        and info["columns"] == ["created_at"]
        and info.get("type") != "brin"
        and not info["unique"]
    )


def drop_time_btree(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {BRIN} "
            f"ON {TABLE} USING brin (created_at)"
        )
        for name in created_at_btrees(schema_editor):
            schema_editor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')
        return
    for name in created_at_btrees(schema_editor):
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


def restore_time_btree(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX CONCURRENTLY IF NOT EXISTS "{BTREE}" '
            f'ON {TABLE} ("created_at")'
        )
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {BRIN}")
        return
    schema_editor.execute(
        f'CREATE INDEX IF NOT EXISTS "{BTREE}" ON "{TABLE}" ("created_at")'
    )


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("stream", "0010_agent_key_fields_leave")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="thought",
                    name="created_at",
                    field=models.DateTimeField(),
                ),
            ],
            database_operations=[
                migrations.RunPython(
                    drop_time_btree, restore_time_btree, elidable=False
                ),
            ],
        ),
    ]
