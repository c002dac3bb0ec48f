"""Thoughts and tasks lose their single-column B-trees on ``created_at``;
tasks get the agent's newest-first index the thoughts have.

Why: the feeds read one agent's newest rows (``agent_id = ? AND broadcast
ORDER BY created_at DESC, id DESC LIMIT n``). With a B-tree on
``created_at`` alone, PostgreSQL rates walking it backwards as the cheapest
way to get rows in order (the table is in time order, so that index looks
perfectly correlated) and discards every newer row of every other agent on
the way: a feed's cost grew with other agents' traffic (7,602 rows read for
20 at 100,000 thoughts). Without it, the agent's own indexes
(``thought_recent_idx``, ``thought_actionable_idx``,
``task_queue_order_idx``, ``task_agent_newest_idx``) are the only ordered
paths. The claim's index holds its whole order (``created_at``, then
``id``): with ``created_at`` alone the planner preferred walking all the
agent's tasks in time order, finished ones included. Every read of these
tables by time also filters by agent, which those indexes serve; a sweep
by age across agents goes in primary-key order (ids are handed out in time
order).

Safe on a big table: on PostgreSQL each index is built or dropped
``CONCURRENTLY`` (writes go on), which cannot run inside a transaction, so
the migration is not atomic; ``IF [NOT] EXISTS`` makes a rerun after an
interruption safe (an index an interrupted build left invalid is dropped
and built again). SQLite takes the same statements without
``CONCURRENTLY``.
"""

import django.db.models.deletion
from django.db import migrations, models

# The names Django gave the ``db_index`` of ``created_at`` in 0001 and 0003;
# going back recreates them under those names.
THOUGHT_TIME = ("stream_thought_created_at_6ae26f5e", "stream_thought")
TASK_TIME = ("stream_task_created_at_d7fb8665", "stream_task")
# The tasks' plain foreign-key index on the agent: task_agent_newest_idx
# leads with the agent and serves every lookup it served.
TASK_AGENT = ("stream_task_agent_id_b3f504d6", '"agent_id"')
TASK_NEWEST = "task_agent_newest_idx"
TASK_NEWEST_COLUMNS = '"agent_id", "created_at" DESC, "id" DESC'
TASK_QUEUE = ("task_queue_idx", '"agent_id", "status", "created_at"')
TASK_QUEUE_ORDER = ("task_queue_order_idx", '"agent_id", "status", "created_at", "id"')


def drop_if_invalid(schema_editor, name: str) -> None:
    """Drop index ``name`` when an interrupted concurrent build left it
    invalid (``IF NOT EXISTS`` would keep it, unused, forever)."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_index JOIN pg_class ON pg_class.oid = indexrelid "
            "WHERE relname = %s AND NOT indisvalid",
            [name],
        )
        invalid = cursor.fetchone() is not None
    if invalid:
        schema_editor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')


def concurrently(schema_editor) -> str:
    return " CONCURRENTLY" if schema_editor.connection.vendor == "postgresql" else ""


def create(schema_editor, name: str, table: str, columns: str) -> None:
    if schema_editor.connection.vendor == "postgresql":
        drop_if_invalid(schema_editor, name)
    schema_editor.execute(
        f'CREATE INDEX{concurrently(schema_editor)} IF NOT EXISTS "{name}" '
        f'ON "{table}" ({columns})'
    )


def drop(schema_editor, name: str) -> None:
    schema_editor.execute(f'DROP INDEX{concurrently(schema_editor)} IF EXISTS "{name}"')


def forwards(apps, schema_editor):
    # The new indexes first: every read keeps an ordered path meanwhile.
    create(schema_editor, TASK_NEWEST, "stream_task", TASK_NEWEST_COLUMNS)
    create(schema_editor, TASK_QUEUE_ORDER[0], "stream_task", TASK_QUEUE_ORDER[1])
    for name, _table in (THOUGHT_TIME, TASK_TIME):
        drop(schema_editor, name)
    drop(schema_editor, TASK_QUEUE[0])
    drop(schema_editor, TASK_AGENT[0])


def backwards(apps, schema_editor):
    for name, table in (THOUGHT_TIME, TASK_TIME):
        create(schema_editor, name, table, '"created_at"')
    create(schema_editor, TASK_QUEUE[0], "stream_task", TASK_QUEUE[1])
    create(schema_editor, TASK_AGENT[0], "stream_task", TASK_AGENT[1])
    drop(schema_editor, TASK_QUEUE_ORDER[0])
    drop(schema_editor, TASK_NEWEST)


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
                migrations.AlterField(
                    model_name="task",
                    name="created_at",
                    field=models.DateTimeField(),
                ),
                migrations.AlterField(
                    model_name="task",
                    name="agent",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tasks",
                        to="stream.agent",
                    ),
                ),
                migrations.AddIndex(
                    model_name="task",
                    index=models.Index(
                        fields=["agent", "-created_at", "-id"], name=TASK_NEWEST
                    ),
                ),
                migrations.RemoveIndex(model_name="task", name=TASK_QUEUE[0]),
                migrations.AddIndex(
                    model_name="task",
                    index=models.Index(
                        fields=["agent", "status", "created_at", "id"],
                        name=TASK_QUEUE_ORDER[0],
                    ),
                ),
            ],
            database_operations=[
                migrations.RunPython(forwards, backwards, elidable=False),
            ],
        ),
    ]
