"""``manage.py benchmark_ci_gate --base DIR --candidate DIR``: the CI gate.

The same gate as ``python -m evals.gate`` (which needs no database and no
Django settings) over two eval-store directories; ``--snapshot-id
required-main`` compares against the stored baseline of the base store,
bootstrapped from the candidate's when the base has none. Prints the
markdown report; ``--json OUT`` / ``--markdown OUT`` write the reports.
Exit codes: 0 pass, 1 regression, 2 unusable input (a missing or unreadable
directory, a snapshot in neither store, a report that cannot be written).
``--stat [--margin X] [--reducer NAME]`` judges with intervals
(``evals.cli_stat``); without it the output is the plain gate's.
``--max-cost-increase X`` and ``--max-p95-latency-ms N`` add cost and
latency budgets judged from the runs' spans in the database
(``evals.cli_budgets``, ``evals.core.gate_budgets``), in either mode; off
unless given.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import CoreError
from evals import cli, cli_budgets, cli_stat, cli_stat_run
from evals.core.gate_budgets import BudgetReport, gate_pairs, with_budgets
from evals.core.metric_registry import parse_overrides
from evals.management.commands.benchmark_baseline_report import (
    EXIT_REGRESSION,
    EXIT_UNUSABLE,
    write_reports,
)
from evals.services.benchmark_reports import stores_gate
from evals.services.compare_usage import budget_checks


class Command(BaseCommand):
    help = (
        "Gate a candidate eval store against a base store or its stored baseline "
        "(exit 0 pass, 1 regression, 2 unusable input)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_store_arguments(parser)
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="processes that read the stores (default 1)",
        )
        cli.add_report_arguments(parser)
        cli_stat.add_stat_arguments(parser)
        cli_budgets.add_budget_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        stat = cli_stat.stat_options_of(options)
        if stat is not None:
            self._handle_stat(stat, options)
            return
        workers = max(1, options["workers"])
        try:
            request = cli.request_of(options)
            if workers > 1:
                with ProcessPoolExecutor(
                    max_workers=min(workers, os.cpu_count() or 1)
                ) as pool:
                    verdict = stores_gate(request=request, executor=pool)
            else:
                verdict = stores_gate(request=request)
        except (CoreError, ValueError, OSError) as error:
            message = error.message if isinstance(error, CoreError) else str(error)
            raise CommandError(message, returncode=EXIT_UNUSABLE) from None
        budgets = cli_budgets.budgets_of(options)
        if budgets.asked:
            checks = budget_checks(budgets, gate_pairs(verdict))
            verdict = with_budgets(verdict, budgets, checks)
        write_reports(self, verdict, options)

    def _handle_stat(self, stat: cli_stat.StatOptions, options: Any) -> None:
        workers = max(1, options["workers"])
        try:
            request = cli.request_of(options)
            if workers > 1:
                with ProcessPoolExecutor(
                    max_workers=min(workers, os.cpu_count() or 1)
                ) as pool:
                    base, candidate = cli.load_gate_stores(
                        request, pool, case_columns=True
                    )
            else:
                base, candidate = cli.load_gate_stores(request, None, case_columns=True)
            verdict = cli_stat_run.decide_stat(
                base,
                candidate,
                stat,
                snapshot_id=request.snapshot_id,
                min_cases=request.min_cases,
                overrides=parse_overrides(request.metric_directions),
            )
        except (CoreError, ValueError, OSError) as error:
            message = error.message if isinstance(error, CoreError) else str(error)
            raise CommandError(message, returncode=EXIT_UNUSABLE) from None
        budgets = cli_budgets.budgets_of(options)
        report = (
            BudgetReport(
                budgets,
                budget_checks(
                    budgets,
                    [
                        (b.benchmark_id, b.base_run_id, b.candidate_run_id)
                        for b in verdict.benchmarks
                    ],
                ),
            )
            if budgets.asked
            else None
        )
        try:
            markdown = cli_stat_run.write_stat_reports(
                verdict,
                json_path=options["json"],
                markdown_path=options["markdown"],
                budgets=report,
            )
        except OSError as error:
            raise CommandError(
                f"cannot write the report: {error}", returncode=EXIT_UNUSABLE
            ) from None
        self.stdout.write(markdown, ending="")
        # The log line says what the reports say: a failed budget fails it.
        cli_stat_run.log_stat_gate(
            verdict
            if report is None
            else replace(verdict, passed=verdict.passed and report.passed)
        )
        if not verdict.passed:
            raise CommandError(
                "gate failed: a regression beyond the margin",
                returncode=EXIT_REGRESSION,
            )
        if report is not None and not report.passed:
            raise CommandError(
                "gate failed: a cost or latency budget", returncode=EXIT_REGRESSION
            )
