"""``manage.py keepalive_worker_guard``: the worker's execute/skip decision
inside GitHub Actions.

Prints the ``WORKER:`` line, appends it to ``$GITHUB_STEP_SUMMARY`` and
writes ``action``/``reason``/``instruction``/``head`` to ``$GITHUB_OUTPUT``.
Exit 0 whether it executes or skips (a skip is a decision, not a failure);
2 for a missing environment or a GitHub failure.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from prkeepalive.core.summary import worker_line
from prkeepalive.core.types import LastProcessed
from prkeepalive.github import GitHubError
from prkeepalive.management.commands._keepalive_args import (
    add_policy_arguments,
    policy_from,
)
from prkeepalive.services.actions import (
    ActionsConfigError,
    Env,
    worker_guard_in_actions,
)


class Command(BaseCommand):
    help = "Decide whether the keepalive worker executes this round (GitHub Actions)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pr", type=int, required=True)
        parser.add_argument("--trace", default="")
        parser.add_argument(
            "--last-instruction",
            type=int,
            default=None,
            help="id of the last processed instruction",
        )
        parser.add_argument(
            "--last-head", default="", help="head SHA when it was processed"
        )
        add_policy_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            decision = worker_guard_in_actions(
                Env.read(),
                number=options["pr"],
                policy=policy_from(options),
                orchestrator_workflow=options["orchestrator_workflow"],
                last=LastProcessed(options["last_instruction"], options["last_head"]),
                trace=options["trace"],
            )
        except ActionsConfigError as exc:
            raise CommandError(str(exc), returncode=2) from None
        except GitHubError as exc:
            raise CommandError(f"GitHub: {exc}", returncode=2) from None
        self.stdout.write(worker_line(decision))
