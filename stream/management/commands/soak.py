"""``manage.py soak --minutes 12 --agent NAME``: the agency contract §7 soak test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from stream.models import Agent
from stream.services.soak import (
    SOAK_MIN_MINUTES,
    soak_report_text,
    soak_report_to_wire,
    soak_run,
)


class Command(BaseCommand):
    help = (
        "Run a simulated agent against the real planning services on a "
        "compressed clock and report the 8 acceptance checks (the agency contract "
        "§7.2) "
        "and the stall classes (§7.3). Exits 1 when a check fails. Use a "
        "dedicated agent: its counters are reset."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--agent", required=True, help="agent name")
        parser.add_argument("--minutes", type=int, default=12)
        parser.add_argument(
            "--step", type=int, default=10, help="simulated seconds per step"
        )
        parser.add_argument(
            "--out",
            type=Path,
            default=None,
            help="JSON report path (a .log text report is written next to it); "
            "default var/soak/soak-<timestamp>.json",
        )
        parser.add_argument(
            "--model-emits-no-intent",
            action="store_true",
            help="record the explicit observation that the model emits no INTENT "
            "(check 6)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        agent = Agent.objects.filter(name=options["agent"]).first()
        if agent is None:
            raise CommandError(
                f"no agent named {options['agent']!r}; create a dedicated one with "
                "manage.py create_agent NAME"
            )
        if options["minutes"] < SOAK_MIN_MINUTES:
            raise CommandError(f"--minutes must be at least {SOAK_MIN_MINUTES}")
        if not 1 <= options["step"] <= 60:
            raise CommandError("--step must be between 1 and 60 seconds")
        report = soak_run(
            agent=agent,
            minutes=options["minutes"],
            step_s=options["step"],
            model_emits_intent=False if options["model_emits_no_intent"] else None,
        )
        out = options["out"] or (
            Path(settings.VAR_DIR)
            / "soak"
            / f"soak-{report.started_at:%Y%m%dT%H%M%S}.json"
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        text = soak_report_text(report)
        out.write_text(
            json.dumps(soak_report_to_wire(report), indent=2) + "\n", encoding="utf-8"
        )
        out.with_suffix(".log").write_text(text, encoding="utf-8")
        self.stdout.write(text)
        self.stdout.write(f"report: {out} and {out.with_suffix('.log')}")
        if not report.passed:
            raise SystemExit(1)
