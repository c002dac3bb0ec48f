"""Shadow records get indexes of (recorded at, pk) and (day, recorded at,
pk), both newest first; the day's own index goes (the second leads with
the day, so it serves a day's lookups too).

Why: the shadow list (its page and ``GET /api/benchmarks/shadow``) reads
keyset pages newest first, for every record or one day's; with these
indexes a page walks the records from its cursor on instead of sorting the
whole table (or the whole day) for each page.

Safe on a big table: built ``CONCURRENTLY`` on PostgreSQL (writes go on;
the migration is not atomic; an invalid index an interrupted build left is
dropped and built again on the rerun), the operations of migration 0008.
"""

from importlib import import_module

from django.db import migrations, models

online = import_module("evals.migrations.0008_run_lists_walk_their_index")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("evals", "0009_case_outcome_index")]

    operations = [
        online.AddIndexOnline(
            model_name="shadowrecord",
            index=models.Index(
                fields=["-recorded_at", "-id"], name="shadow_newest_idx"
            ),
        ),
        online.AddIndexOnline(
            model_name="shadowrecord",
            index=models.Index(
                fields=["day", "-recorded_at", "-id"], name="shadow_day_newest_idx"
            ),
        ),
        # After the index that replaces it is built.
        migrations.AlterField(
            model_name="shadowrecord", name="day", field=models.DateField()
        ),
    ]
