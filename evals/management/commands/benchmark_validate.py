"""``manage.py benchmark_validate PATH``: is this a valid benchmark pack?

PATH is a manifest JSON file, a pack directory with a root ``manifest.json``,
or a zip/tar.gz pack. Prints every problem with its JSON path; writes
nothing. Exit codes: 0 valid, 1 invalid (or a refused archive), 2 PATH not
found.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.core.management.base import (
    BaseCommand,
    CommandError,
    CommandParser,
    OutputWrapper,
)

from core.errors import NotFound, SchemaInvalid, SchemaProblem
from evals.core.archive import UnsafeArchive
from evals.services.benchmarks import benchmark_pack_read

EXIT_INVALID = 1
EXIT_UNUSABLE = 2


def write_problems(out: OutputWrapper, problems: Iterable[SchemaProblem]) -> None:
    """One line per problem: ``  <JSON path>: <message>``."""
    for problem in problems:
        out.write(f"  {problem.path}: {problem.message}")


class Command(BaseCommand):
    help = (
        "Validate a benchmark pack (manifest file, pack directory or zip/tar.gz) "
        "and print every problem with its JSON path."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        try:
            source = benchmark_pack_read(path=path)
        except NotFound as error:
            raise CommandError(error.message, returncode=EXIT_UNUSABLE) from None
        except UnsafeArchive as error:
            raise CommandError(
                f"refused archive: {error.message}", returncode=EXIT_INVALID
            ) from None
        except SchemaInvalid as error:
            self.stdout.write(
                f"invalid benchmark pack: {path} ({len(error.problems)} problem(s))"
            )
            write_problems(self.stdout, error.problems)
            raise CommandError(
                f"{path} is not a valid benchmark pack", returncode=EXIT_INVALID
            ) from None
        manifest = source.manifest
        self.stdout.write(
            f"valid benchmark pack: {manifest.benchmark_id} "
            f"({manifest.benchmark_type.value}, {len(manifest.cases)} cases, "
            f"{len(source.extra_files)} extra files)"
        )
