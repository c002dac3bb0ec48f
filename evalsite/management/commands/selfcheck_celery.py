from __future__ import annotations

import secrets
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite.models import WorkerHeartbeat
from evalsite.services import selfcheck_expected_total, selfcheck_start


class Command(BaseCommand):
    help = (
        "Send a Celery chord through the configured broker and wait until a "
        "worker has run it and written the result to the database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--timeout", type=float, default=30.0)

    def handle(self, *args: Any, **options: Any) -> None:
        token = secrets.token_hex(6)
        selfcheck_start(token=token)
        self.stdout.write(f"chord sent (token {token}); waiting for a worker ...")
        deadline = time.monotonic() + options["timeout"]
        while time.monotonic() < deadline:
            row = WorkerHeartbeat.objects.filter(source=f"selfcheck:{token}").first()
            if row is not None:
                if row.beats != selfcheck_expected_total():
                    raise CommandError(f"chord joined with wrong total {row.beats}")
                self.stdout.write(
                    self.style.SUCCESS("ok: worker, group and chord work")
                )
                return
            time.sleep(0.25)
        raise CommandError(
            f"no worker finished the chord within {options['timeout']} s; is "
            "`celery -A evalsite worker` running against the same broker?"
        )
