"""``manage.py benchmark_baseline_snapshot --snapshot-id ID [--notes ...]``.

Snapshots the latest completed run of every benchmark in the database as
the named baseline (replacing a snapshot of that id, which is how
``required-main`` moves forward). Needs
``BENCHMARK_BASELINE_SNAPSHOTS_ENABLED``; else it stops with "benchmark
baseline snapshots are disabled". Exit codes: 0 saved, 1 disabled or an
invalid snapshot id.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import CoreError, SchemaInvalid
from evals.core.gate import format_number
from evals.management.commands.benchmark_validate import write_problems
from evals.services.baselines import baseline_snapshot_create


class Command(BaseCommand):
    help = "Snapshot the latest completed run per benchmark as a named baseline."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--snapshot-id", required=True)
        parser.add_argument("--notes", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = baseline_snapshot_create(
                snapshot_id=options["snapshot_id"], notes=options["notes"] or None
            )
        except SchemaInvalid as error:
            write_problems(self.stderr, error.problems)
            raise CommandError(error.message) from None
        except CoreError as error:
            raise CommandError(error.message) from None
        document = result.snapshot.document
        self.stdout.write(
            f"baseline snapshot {document['snapshotId']} {result.outcome}: "
            f"{document['benchmarkCount']} benchmark(s), "
            f"created {document['createdAt']}"
        )
        for entry in document["benchmarks"]:
            self.stdout.write(
                f"- {entry['benchmarkId']}: run {entry['runId']}, passRate "
                f"{format_number(entry['passRate'])}"
            )
