"""``manage.py eval_store_export [DIR]``: write the database as an eval store.

Writes every benchmark pack, run summary (harness runs included), shadow
record and baseline snapshot under DIR (default ``EVAL_STORE_DIR``) in seed
002's layout, with canonical bytes: exporting the same database twice gives
identical files. Files of other names already in DIR are left alone.
Everything is written to a folder beside DIR first and moved in only when
complete, so a failure leaves DIR as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evals.services.store_export import eval_store_export


class Command(BaseCommand):
    help = "Export the database's packs, runs, shadow records and baselines."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "dir", nargs="?", type=Path, help="target directory (EVAL_STORE_DIR)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root: Path = options["dir"] or Path(settings.EVAL_STORE_DIR)
        try:
            result = eval_store_export(root=root)
        except OSError as error:
            raise CommandError(
                f"export to {root} failed and wrote nothing: {error}"
            ) from None
        counts = result.counts
        self.stdout.write(
            f"exported to {root}: {counts.benchmarks} benchmark pack(s), "
            f"{counts.runs} run(s), {counts.shadows} shadow record(s), "
            f"{counts.baselines} baseline snapshot(s)"
        )
        for item in result.skipped:
            self.stderr.write(f"skipped (invalid in the database): {item.path}")
            for problem in item.problems:
                self.stderr.write(f"  {problem.path}: {problem.message}")
