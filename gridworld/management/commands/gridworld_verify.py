"""``manage.py gridworld_verify RECEIPT.json``: replay a receipt offline.

Exit codes: 0 verified, 1 divergence (the first divergent step and field are
printed), 2 unreadable (not a file, not UTF-8 JSON).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

EXIT_DIVERGED = 1
EXIT_UNREADABLE = 2


class Command(BaseCommand):
    help = "Re-run a gridworld run receipt and compare it step by step."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("receipt", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        from gridworld.services.episodes import receipt_verify

        path: Path = options["receipt"]
        try:
            document = json.loads(path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise CommandError(
                f"{path}: unreadable receipt: {exc}", returncode=EXIT_UNREADABLE
            ) from exc
        verification = receipt_verify(document, source="cli")
        divergence = verification.divergence
        if divergence is None:
            self.stdout.write(
                f"{path}: verified run {verification.run_id} "
                f"({verification.steps_checked} steps replayed exactly)"
            )
            return
        where = "config" if divergence.step is None else f"step {divergence.step}"
        raise CommandError(
            f"{path}: diverges at {where}, field {divergence.field}: "
            f"expected {json.dumps(divergence.expected)}, "
            f"got {json.dumps(divergence.got)}",
            returncode=EXIT_DIVERGED,
        )
