"""``manage.py partition_thoughts``: the thoughts table partitioned by month
on PostgreSQL (docs/retention.md)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from stream.services.partitions import (
    PartitioningRefused,
    abort,
    conversion_now,
    convert,
    drop_old,
    plan_text,
)


class Command(BaseCommand):
    help = (
        "Partition the thoughts table by month (PostgreSQL): --plan prints the "
        "SQL, --apply converts it (or converts it back when it is partitioned)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        what = parser.add_mutually_exclusive_group(required=True)
        what.add_argument("--plan", action="store_true", help="print the SQL only")
        what.add_argument(
            "--apply",
            action="store_true",
            help="convert: plain to partitioned, or partitioned back to plain",
        )
        what.add_argument(
            "--drop-old",
            action="store_true",
            help="drop the table an earlier --apply left beside the new one",
        )
        what.add_argument(
            "--abort",
            action="store_true",
            help="remove what an --apply stopped half-way left (the live table "
            "is untouched)",
        )
        parser.add_argument(
            "--batch",
            type=int,
            default=None,
            help="ids copied per transaction (default: RETENTION_BATCH x 10)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        batch = options["batch"] or settings.RETENTION_BATCH * 10
        if batch < 1:
            raise CommandError("--batch must be at least 1")
        try:
            if options["plan"]:
                facts, plan = conversion_now()
                self.stdout.write(plan_text(facts, plan, batch=batch))
            elif options["apply"]:
                convert(batch=batch, report=self.stdout.write)
            elif options["drop_old"]:
                dropped = drop_old()
                self.stdout.write(
                    f"dropped {dropped}" if dropped else "no old table to drop"
                )
            else:
                for sql in abort():
                    self.stdout.write(sql)
        except PartitioningRefused as exc:
            raise CommandError(str(exc)) from None
