"""``manage.py benchmark_baseline_report --snapshot-id ID``: the delta report.

Compares the stored baseline snapshot ID with the latest completed run of
every benchmark in the database and prints the markdown report (also
``--markdown OUT``; the JSON verdict with ``--json OUT``). Needs
``BENCHMARK_DELTA_REPORTER_ENABLED``; else it stops with "benchmark delta
reporter is disabled". Exit codes: 0 no regression, 1 regression, 2
unusable (disabled, snapshot not found, a report that cannot be written).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import CoreError
from evals import cli
from evals.core.gate import GateVerdict
from evals.core.metric_registry import parse_overrides
from evals.services.benchmark_reports import baseline_delta_report

EXIT_REGRESSION = 1
EXIT_UNUSABLE = 2


def write_reports(command: BaseCommand, verdict: GateVerdict, options: Any) -> None:
    """Print the markdown, write the requested files, exit 1 on regression."""
    try:
        markdown = cli.write_reports(
            verdict, json_path=options["json"], markdown_path=options["markdown"]
        )
    except OSError as error:
        raise CommandError(
            f"cannot write the report: {error}", returncode=EXIT_UNUSABLE
        ) from None
    command.stdout.write(markdown, ending="")
    if not verdict.passed:
        raise CommandError(
            f"gate failed: {len(verdict.regressions)} regression(s)",
            returncode=EXIT_REGRESSION,
        )


class Command(BaseCommand):
    help = (
        "Compare a stored baseline snapshot with the latest completed runs "
        "(exit 0 pass, 1 regression, 2 unusable)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--snapshot-id", required=True)
        cli.add_report_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            verdict = baseline_delta_report(
                snapshot_id=options["snapshot_id"],
                min_cases=options["min_cases"],
                overrides=parse_overrides(options["metric_direction"]),
            )
        except (CoreError, ValueError) as error:
            message = error.message if isinstance(error, CoreError) else str(error)
            raise CommandError(message, returncode=EXIT_UNUSABLE) from None
        write_reports(self, verdict, options)
