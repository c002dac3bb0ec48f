"""``manage.py eval_store_import [DIR] [--force] [--skip-invalid]``.

Imports an eval store (default ``EVAL_STORE_DIR``) into the database: packs
(with their extra files), run summaries, shadow records and baseline
snapshots. Everything is validated first; any invalid file refuses the whole
import (every problem printed) unless ``--skip-invalid``; a document that
differs from the stored one under the same id refuses it unless
``--force``; otherwise everything is written in one transaction. Documents
already stored unchanged are skipped, so importing twice is harmless.
Exit codes: 0 imported, 1 invalid files or conflicts (nothing written),
2 DIR missing or unreadable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import CoreError
from evals.core.archive import UnsafeArchive
from evals.core.store import StoreUnreadable
from evals.services.store_import import StoreConflict, eval_store_import


class Command(BaseCommand):
    help = "Import an eval store directory into the database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "dir", nargs="?", type=Path, help="store directory (EVAL_STORE_DIR)"
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace stored documents that differ under the same id",
        )
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help="import the valid files and report the invalid ones",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root: Path = options["dir"] or Path(settings.EVAL_STORE_DIR)
        try:
            result = eval_store_import(
                root=root, force=options["force"], skip_invalid=options["skip_invalid"]
            )
        except StoreUnreadable as error:
            raise CommandError(error.message, returncode=2) from None
        except StoreConflict as error:
            for line in error.details["conflicts"]:
                self.stderr.write(f"conflict: {line}")
            raise CommandError(error.message, returncode=1) from None
        except (UnsafeArchive, CoreError) as error:
            raise CommandError(error.message, returncode=1) from None
        for item in result.invalid:
            self.stderr.write(f"invalid: {item.path}")
            for problem in item.problems:
                self.stderr.write(f"  {problem.path}: {problem.message}")
        if not result.written:
            raise CommandError(
                f"nothing imported: {len(result.invalid)} invalid file(s) "
                "(--skip-invalid imports the rest)",
                returncode=1,
            )
        counts = result.counts
        assert counts is not None
        for label, value in (
            ("created", counts.created),
            ("replaced", counts.replaced),
            ("unchanged", counts.unchanged),
        ):
            self.stdout.write(
                f"{label}: {value.benchmarks} benchmark pack(s), {value.runs} run(s), "
                f"{value.shadows} shadow record(s), {value.baselines} baseline "
                "snapshot(s)"
            )
        if result.placeholders:
            self.stdout.write(
                "benchmarks known only from their runs: "
                + ", ".join(result.placeholders)
            )
        if result.invalid:
            self.stdout.write(f"skipped {len(result.invalid)} invalid file(s)")
