"""Runs get an index per list, in the list's whole order; case results lose
their plain foreign-key index.

Why: each list reads a page of runs (the run list, one benchmark's runs, a
benchmark's trend, the gate's latest completed run per benchmark). Without
an index holding the list's filter and whole order, PostgreSQL sorted all
of a benchmark's runs for each, or walked the global ``started_at`` index
discarding other benchmarks' runs; the cost grew with the table, not the
page. The plain foreign-key indexes go where another index leads with the
same column: the case results' ``run_id`` (``uniq_case_per_run`` serves
every read by run; at ten million case results it cost space and every
insert) and the runs' ``benchmark_id`` (the planner took it and sorted all
of a benchmark's runs for a page).

Safe on a big table: on PostgreSQL every index is built and dropped
``CONCURRENTLY`` (writes go on; it cannot run inside a transaction, so the
migration is not atomic), the new indexes before the old ones go, and an
index an interrupted build left invalid is dropped and built again on the
rerun. SQLite takes the plain operations.
"""

import django.db.models.deletion
from django.contrib.postgres.operations import (
    AddIndexConcurrently,
    RemoveIndexConcurrently,
)
from django.db import migrations, models
from django.db.models.functions import Coalesce


def on_postgres(schema_editor) -> bool:
    return schema_editor.connection.vendor == "postgresql"


def drop_if_invalid(schema_editor, name: str) -> None:
    """Drop index ``name`` when an interrupted concurrent build left it
    invalid, so that building it again can succeed."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_index JOIN pg_class ON pg_class.oid = indexrelid "
            "WHERE relname = %s AND NOT indisvalid",
            [name],
        )
        invalid = cursor.fetchone() is not None
    if invalid:
        schema_editor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')


class AddIndexOnline(AddIndexConcurrently):
    """``CREATE INDEX CONCURRENTLY`` on PostgreSQL, a plain ``AddIndex``
    elsewhere."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if not on_postgres(schema_editor):
            return migrations.AddIndex.database_forwards(
                self, app_label, schema_editor, from_state, to_state
            )
        drop_if_invalid(schema_editor, self.index.name)
        return super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if not on_postgres(schema_editor):
            return migrations.AddIndex.database_backwards(
                self, app_label, schema_editor, from_state, to_state
            )
        return super().database_backwards(
            app_label, schema_editor, from_state, to_state
        )


class RemoveIndexOnline(RemoveIndexConcurrently):
    """``DROP INDEX CONCURRENTLY`` on PostgreSQL, a plain ``RemoveIndex``
    elsewhere."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if not on_postgres(schema_editor):
            return migrations.RemoveIndex.database_forwards(
                self, app_label, schema_editor, from_state, to_state
            )
        return super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if not on_postgres(schema_editor):
            return migrations.RemoveIndex.database_backwards(
                self, app_label, schema_editor, from_state, to_state
            )
        drop_if_invalid(schema_editor, self.name)
        return super().database_backwards(
            app_label, schema_editor, from_state, to_state
        )


# The plain foreign-key indexes Django made in 0001, which an index leading
# with the same column makes redundant: (name, table, column).
REDUNDANT = (
    ("evals_caseresult_run_id_7953a091", "evals_caseresult", "run_id"),
    ("evals_run_benchmark_id_a280b8a0", "evals_run", "benchmark_id"),
)


def drop_redundant(apps, schema_editor):
    concurrently = " CONCURRENTLY" if on_postgres(schema_editor) else ""
    for name, _table, _column in REDUNDANT:
        schema_editor.execute(f'DROP INDEX{concurrently} IF EXISTS "{name}"')


def restore_redundant(apps, schema_editor):
    concurrently = " CONCURRENTLY" if on_postgres(schema_editor) else ""
    for name, table, column in REDUNDANT:
        if on_postgres(schema_editor):
            drop_if_invalid(schema_editor, name)
        schema_editor.execute(
            f'CREATE INDEX{concurrently} IF NOT EXISTS "{name}" '
            f'ON "{table}" ("{column}")'
        )


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("evals", "0007_run_uncertainty")]

    operations = [
        AddIndexOnline(
            model_name="run",
            index=models.Index(fields=["-started_at", "-id"], name="run_newest_idx"),
        ),
        AddIndexOnline(
            model_name="run",
            index=models.Index(
                fields=["benchmark", "-started_at", "-id"],
                name="run_benchmark_newest_idx",
            ),
        ),
        AddIndexOnline(
            model_name="run",
            index=models.Index(
                condition=models.Q(completed_at__isnull=False),
                fields=["benchmark", "-completed_at", "-id"],
                name="run_benchmark_finished_idx",
            ),
        ),
        AddIndexOnline(
            model_name="run",
            index=models.Index(
                models.F("benchmark"),
                Coalesce("completed_at", "started_at").desc(),
                models.F("run_id").desc(),
                condition=models.Q(status="completed"),
                name="run_latest_completed_idx",
            ),
        ),
        RemoveIndexOnline(model_name="run", name="evals_run_started_64f87d_idx"),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="caseresult",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="case_results",
                        to="evals.run",
                    ),
                ),
                migrations.AlterField(
                    model_name="run",
                    name="benchmark",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="runs",
                        to="evals.benchmark",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunPython(drop_redundant, restore_redundant, elidable=False),
            ],
        ),
    ]
