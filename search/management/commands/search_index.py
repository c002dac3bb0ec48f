"""``manage.py search_index [--rebuild]``: bring the search index up to date.

Without ``--rebuild``, indexes everything written since the last pass (what
the beat task does every few seconds). ``--rebuild`` forgets every document
and indexes all sources from the start (after a change of
``SEARCH_LANGUAGE``, or to drop documents whose source is gone). Prints how
many documents each source gave. Exit code 0.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from search.services.indexer import index_pass, rebuild


class Command(BaseCommand):
    help = "Index new thoughts, outputs, comments and decisions for search."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="forget every document and index everything again",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["rebuild"]:
            result = rebuild()
        else:
            result = index_pass(max_batches=1000)
            while result.more:
                result = index_pass(max_batches=1000)
        if not result.written:
            self.stdout.write("search index: nothing new")
        for source, count in sorted(result.written.items()):
            self.stdout.write(f"search index: {count} {source} documents")
