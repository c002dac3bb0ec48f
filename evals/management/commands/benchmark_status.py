"""``manage.py benchmark_status [--store DIR] [--json]``: the harness status.

Reports the feature flags, benchmark pack counts (memory red-team packs with
their unique attack classes and target surfaces), invalid manifests, total
cases, the latest run, shadow record counts, invalid shadow records, the
latest shadow record, baseline counts and the latest baseline, of the
database (default) or of an on-disk eval store. ``--json`` prints the whole
report as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import CoreError
from evals.services.benchmark_reports import database_status, store_status


def _on(value: bool) -> str:
    return "on" if value else "off"


def _listed(values: list[str]) -> str:
    return ", ".join(values) if values else "none"


def status_lines(report: dict[str, Any]) -> list[str]:
    """The report as the lines the command prints."""
    benchmarks, runs = report["benchmarks"], report["runs"]
    shadows, baselines = report["shadows"], report["baselines"]
    lines = [
        f"source: {report['rootDir']}",
        f"eval harness: {_on(report['enabled'])}, shadow mode: "
        f"{_on(report['shadowModeEnabled'])}, baseline snapshots: "
        f"{_on(baselines['enabled'])}, delta reporter: "
        f"{_on(report['deltaReporterEnabled'])}, memory red-team bench: "
        f"{_on(report['memoryRedTeamBenchEnabled'])}",
        f"benchmark packs: {benchmarks['valid']} valid, {benchmarks['invalid']} "
        f"invalid, {benchmarks['totalCases']} cases",
        f"memory red-team packs: {benchmarks['redTeam']} (attack classes: "
        f"{_listed(benchmarks['attackClasses'])}; target surfaces: "
        f"{_listed(benchmarks['targetSurfaces'])})",
        f"runs: {runs['total']} ({runs['completed']} completed, {runs['running']} "
        f"running, {runs['failed']} failed, {runs['partial']} partial), "
        f"{runs['invalid']} invalid",
    ]
    if runs["latestRunId"]:
        latest = report["latestRun"]
        lines.append(
            f"latest run: {runs['latestRunId']} ({runs['latestBenchmarkId']}, "
            f"{latest['status']}, {latest['passedCases']}/{latest['totalCases']} "
            f"passed, completed {runs['latestCompletedAt'] or '-'})"
        )
    else:
        lines.append("latest run: none")
    lines.append(f"shadow records: {shadows['total']}, {shadows['invalid']} invalid")
    if shadows["latestTraceId"]:
        latest = report["latestShadow"]
        lines.append(
            f"latest shadow record: {shadows['latestTraceId']} at "
            f"{shadows['latestRecordedAt']} ({shadows['latestSessionKey']}, "
            f"{latest['recallMode']}, {latest['source']}, "
            f"{latest['recalledMemoryCount']} memories, injected "
            f"{str(latest['injected']).lower()})"
        )
    else:
        lines.append("latest shadow record: none")
    lines.append(
        f"baseline snapshots: {baselines['total']}, {baselines['invalid']} invalid"
    )
    if baselines["latestSnapshotId"]:
        lines.append(
            f"latest baseline: {baselines['latestSnapshotId']} (created "
            f"{baselines['latestCreatedAt']}, {baselines['latestBenchmarkCount']} "
            "benchmarks)"
        )
    else:
        lines.append("latest baseline: none")
    for key, label in (
        ("invalidBenchmarks", "invalid manifest"),
        ("invalidRuns", "invalid run summary"),
        ("invalidShadows", "invalid shadow record"),
        ("invalidBaselines", "invalid baseline snapshot"),
    ):
        for item in report[key]:
            lines.append(f"{label}: {item['path']}")
            lines.extend(
                f"  {problem['path']}: {problem['message']}"
                for problem in item["problems"]
            )
    return lines


class Command(BaseCommand):
    help = "Print the eval harness status of the database or of an eval store."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--store", type=Path, help="report on this eval store directory instead"
        )
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = (
                store_status(options["store"])
                if options["store"] is not None
                else database_status()
            )
        except CoreError as error:
            raise CommandError(error.message, returncode=2) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
            return
        for line in status_lines(report):
            self.stdout.write(line)
