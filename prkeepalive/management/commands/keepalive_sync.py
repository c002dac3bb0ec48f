"""``manage.py keepalive_sync``: the branch-sync ladder inside GitHub Actions.

Prints the ``SYNC:`` line, appends it to ``$GITHUB_STEP_SUMMARY`` and writes
``head``/``escalated`` to ``$GITHUB_OUTPUT``. Exit 0 when the output landed
or there was nothing to land; 1 on ``escalate`` (the PR is labelled
``agents:sync-required`` and a person must act, so the job shows red);
2 for a missing environment or a GitHub failure.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from prkeepalive.github import GitHubError
from prkeepalive.services.actions import ActionsConfigError, Env, sync_in_actions


class Command(BaseCommand):
    help = (
        "Land the agent's output into the PR head: update-branch, create-pr, escalate."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pr", type=int, required=True)
        parser.add_argument(
            "--head-before", required=True, help="PR head when the round started"
        )
        parser.add_argument("--trace", required=True)
        parser.add_argument(
            "--worker-failed",
            action="store_true",
            help="the worker did not report done",
        )
        parser.add_argument(
            "--output-branch",
            default="",
            help="branch holding the agent's output (default codex/<trace>)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            line, escalated = sync_in_actions(
                Env.read(),
                number=options["pr"],
                head_before=options["head_before"],
                trace=options["trace"],
                worker_done=not options["worker_failed"],
                output_branch=options["output_branch"] or f"codex/{options['trace']}",
            )
        except ActionsConfigError as exc:
            raise CommandError(str(exc), returncode=2) from None
        except GitHubError as exc:
            raise CommandError(f"GitHub: {exc}", returncode=2) from None
        self.stdout.write(line)
        if escalated:
            raise CommandError(
                "escalate: the output was not landed; labelled agents:sync-required",
                returncode=1,
            )
