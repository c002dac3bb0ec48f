"""``manage.py gridworld_verify RECEIPT.json``: replay a receipt offline.

Exit codes: 0 verified, 1 divergence (the first divergent step and field are
printed), 2 unreadable (not a file, not UTF-8 JSON, a key repeated in an
object, a number infinite after parsing or past 64 bits) or a config that
cannot be replayed (the field and the reason are printed), the same refusals
as ``POST /api/gridworld/verify``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import SchemaInvalid
from gridworld.core.receipt_json import read_receipt_json
from gridworld.services.episodes import receipt_verify

EXIT_DIVERGED = 1
EXIT_UNREADABLE = 2


class Command(BaseCommand):
    help = "Re-run a gridworld run receipt and compare it step by step."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("receipt", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["receipt"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(
                f"{path}: unreadable receipt: {exc}", returncode=EXIT_UNREADABLE
            ) from exc
        try:
            verification = receipt_verify(read_receipt_json(data), source="cli")
        except SchemaInvalid as exc:
            reasons = "; ".join(f"{p.path}: {p.message}" for p in exc.problems)
            raise CommandError(
                f"{path}: {exc.message}: {reasons}", returncode=EXIT_UNREADABLE
            ) from exc
        divergence = verification.divergence
        if divergence is None:
            self.stdout.write(
                f"{path}: verified run {verification.run_id} "
                f"({verification.steps_checked} steps replayed exactly)"
            )
            return
        # A divergence outside the steps (step None) is a top-level field of
        # the run receipt: config.seed, drift_schedule, chain_head, metrics...
        where = (
            "in the run receipt"
            if divergence.step is None
            else f"at step {divergence.step}"
        )
        raise CommandError(
            f"{path}: diverges {where}, field {divergence.field}: "
            f"expected {json.dumps(divergence.expected)}, "
            f"got {json.dumps(divergence.got)}",
            returncode=EXIT_DIVERGED,
        )
