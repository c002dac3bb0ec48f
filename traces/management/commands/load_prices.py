"""``manage.py load_prices PATH [--reprice-unknown]``: a new price table.

Loads the price file at PATH (the format: ``traces/core/prices.py``; the
shipped one is ``traces/prices/prices.json``) as a new table version and
makes it the active one; the spans priced from now on record its version.
Loading a version already stored with the same rules only activates it.
``--reprice-unknown`` then prices again every model call stored as
"unknown" that the new table knows.

Exit codes: 0 loaded, 1 an invalid file (every problem is printed with its
rule index and field) or a version already stored with other rules, 2 no
such file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import Conflict, NotFound, SchemaInvalid
from traces.services.pricing import (
    price_file_read,
    price_table_load,
    spans_reprice_unknown,
)

EXIT_INVALID = 1
EXIT_UNUSABLE = 2


class Command(BaseCommand):
    help = "Load a price file as a new price table version and make it active."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--reprice-unknown",
            action="store_true",
            help="price again the model calls stored with an unknown cost",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        try:
            spec = price_file_read(path)
        except NotFound as error:
            raise CommandError(error.message, returncode=EXIT_UNUSABLE) from None
        except SchemaInvalid as error:
            self.stderr.write(
                f"invalid price file: {path} ({len(error.problems)} problem(s))"
            )
            for problem in error.problems:
                self.stderr.write(f"  {problem.path}: {problem.message}")
            raise CommandError(
                f"{path} is not a valid price file", returncode=EXIT_INVALID
            ) from None
        try:
            result = price_table_load(spec, source="file")
        except Conflict as error:
            raise CommandError(
                f"{path}: {error.message}", returncode=EXIT_INVALID
            ) from None
        verb = {
            "created": "loaded",
            "activated": "already stored; now active",
            "unchanged": "already the active table",
        }[result.outcome]
        self.stdout.write(
            f"price table {result.table.version} ({len(spec.rules)} rules): {verb}"
        )
        if options["reprice_unknown"]:
            repriced = spans_reprice_unknown()
            self.stdout.write(f"repriced {repriced} span(s) that had no price")
