"""``manage.py planning_poll --agent NAME [--once]``: the thought-to-task poll."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from stream.models import Agent
from stream.services.planning import planning_cycle


class Command(BaseCommand):
    help = (
        "Poll an agent's actionable feed, convert what qualifies into tasks and "
        "ack every fetched thought (the opt-in drive tick runs first when "
        "DRIVE_TICK_ENABLED)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--agent", required=True, help="agent name")
        parser.add_argument(
            "--once", action="store_true", help="one cycle, then exit (default: loop)"
        )
        parser.add_argument(
            "--interval",
            type=int,
            default=None,
            help="seconds between cycles when looping (default PLANNING_POLL_S)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        agent = Agent.objects.filter(name=options["agent"]).first()
        if agent is None:
            raise CommandError(f"no agent named {options['agent']!r}")
        if not agent.is_active:
            raise CommandError(f"agent {agent.name!r} is inactive")
        interval = options["interval"] or settings.PLANNING_POLL_S
        while True:
            result = planning_cycle(agent_id=agent.pk)
            if result is not None:
                self.stdout.write(
                    f"fetched={result.fetched} converted={result.converted} "
                    f"skipped={result.skipped} errors={result.errors} "
                    f"acked={result.acked} tasks={list(result.task_ids)}"
                )
            if options["once"]:
                return
            time.sleep(interval)
