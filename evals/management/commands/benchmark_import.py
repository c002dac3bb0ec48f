"""``manage.py benchmark_import PATH [--force]``: store a benchmark pack in
the database.

PATH is a manifest JSON file, a pack directory with a root ``manifest.json``
(its other files are kept with the pack) or a zip/tar.gz pack. An existing
pack with the same benchmarkId is replaced only with ``--force``; importing
the same pack again changes nothing. Exit codes: 0 stored (or unchanged),
1 invalid, refused or already there, 2 PATH not found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import Conflict, NotFound, SchemaInvalid
from evals.core.archive import UnsafeArchive
from evals.management.commands.benchmark_validate import (
    EXIT_INVALID,
    EXIT_UNUSABLE,
    write_problems,
)
from evals.services.benchmarks import benchmark_pack_import


class Command(BaseCommand):
    help = "Import a benchmark pack into the database (--force replaces one)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace an existing pack with the same benchmarkId",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        try:
            result = benchmark_pack_import(path=path, force=options["force"])
        except NotFound as error:
            raise CommandError(error.message, returncode=EXIT_UNUSABLE) from None
        except SchemaInvalid as error:
            self.stdout.write(
                f"invalid benchmark pack: {path} ({len(error.problems)} problem(s))"
            )
            write_problems(self.stdout, error.problems)
            raise CommandError(
                "nothing imported: the pack is invalid", returncode=EXIT_INVALID
            ) from None
        except Conflict as error:
            hint = "" if options["force"] else "; rerun with --force to replace it"
            raise CommandError(
                f"{error.message}{hint}", returncode=EXIT_INVALID
            ) from None
        except UnsafeArchive as error:
            raise CommandError(
                f"refused archive: {error.message}", returncode=EXIT_INVALID
            ) from None
        benchmark = result.benchmark
        files = benchmark.files.count()
        self.stdout.write(
            f"benchmark pack {benchmark.benchmark_id} {result.outcome} "
            f"({benchmark.case_count} cases, {files} extra files)"
        )
