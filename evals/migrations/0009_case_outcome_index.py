"""Case results get a covering index of (run, case id, outcome).

Why: comparing two runs counts the cases by change, finds the flips and
ranks the case table worst first; with the outcome in the index PostgreSQL
answers all of it from the index alone instead of visiting each row (the
first view of a 2 x 100,000-case comparison: 1.56 s -> 0.92 s in
``bench/compare.py``).

Safe on a big table: built ``CONCURRENTLY`` on PostgreSQL (writes go on;
the migration is not atomic; an invalid index an interrupted build left is
dropped and built again on the rerun), the operations of migration 0008.
"""

from importlib import import_module

from django.db import migrations, models

online = import_module("evals.migrations.0008_run_lists_walk_their_index")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("evals", "0008_run_lists_walk_their_index")]

    operations = [
        online.AddIndexOnline(
            model_name="caseresult",
            index=models.Index(
                fields=["run", "case_id", "passed"], name="case_run_case_passed_idx"
            ),
        ),
    ]
