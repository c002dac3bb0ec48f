"""``manage.py keepalive_dispatch``: PR-meta's decision inside GitHub Actions.

Prints the one ``DISPATCH:`` line, appends it to ``$GITHUB_STEP_SUMMARY``
and writes ``dispatch``/``reason``/``pr``/``activation``/``agent``/
``round``/``trace`` to ``$GITHUB_OUTPUT``. Exit 0 for every decision except
``instruction-empty`` (1: the job must fail); 2 for a missing environment
or an unreadable event file.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import SchemaInvalid
from prkeepalive.core.summary import decision_line
from prkeepalive.github import GitHubError
from prkeepalive.management.commands._keepalive_args import (
    add_policy_arguments,
    policy_from,
)
from prkeepalive.services.actions import (
    ActionsConfigError,
    Env,
    dispatch_in_actions,
    read_event,
)


class Command(BaseCommand):
    help = "Decide whether this event dispatches a keepalive round (GitHub Actions)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--event-name",
            default=os.environ.get("GITHUB_EVENT_NAME", ""),
            help="default: $GITHUB_EVENT_NAME",
        )
        parser.add_argument(
            "--event-path",
            default=os.environ.get("GITHUB_EVENT_PATH", ""),
            help="default: $GITHUB_EVENT_PATH",
        )
        parser.add_argument(
            "--activation-comment",
            type=int,
            default=None,
            help="activation handed over by an earlier step",
        )
        add_policy_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["event_name"] or not options["event_path"]:
            raise CommandError(
                "--event-name and --event-path (or GITHUB_EVENT_NAME and "
                "GITHUB_EVENT_PATH) are required",
                returncode=2,
            )
        try:
            env = Env.read()
            payload = read_event(options["event_path"])
            decision = dispatch_in_actions(
                env,
                event_name=options["event_name"],
                payload=payload,
                policy=policy_from(options),
                orchestrator_workflow=options["orchestrator_workflow"],
                activation_id=options["activation_comment"],
            )
        except ActionsConfigError as exc:
            raise CommandError(str(exc), returncode=2) from None
        except SchemaInvalid as exc:
            problems = "; ".join(f"{p.path}: {p.message}" for p in exc.problems)
            raise CommandError(
                f"{options['event_path']}: {problems}", returncode=2
            ) from None
        except GitHubError as exc:
            raise CommandError(f"GitHub: {exc}", returncode=2) from None
        if isinstance(decision, str):
            self.stdout.write(f"nothing to decide: {decision}")
            return
        self.stdout.write(decision_line(decision))
        if decision.fails_job:
            raise CommandError(
                "instruction-empty: no Scope, Tasks or Acceptance Criteria",
                returncode=1,
            )
