"""What the harness service tests share: the shipped suites, the smoke
suite's scenario ids, and small helpers to run a suite and read files."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from evals.models import Benchmark, CaseResult, Run, SuiteVersion
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
SMOKE_IDS = [
    "smoke:stable-plains",
    "smoke:sheltered-night",
    "smoke:hunger-raw-mutton",
    "smoke:fox-at-dawn",
    "smoke:zombie-close",
]


def run_suite(suite: Path, **options: Any) -> Run:
    options.setdefault("profile", "balanced")
    options.setdefault("mode", "thought_only")
    options.setdefault("model", "scripted")
    run = eval_run_create(suite_path=suite, schedule=False, **options)
    return run_execute(run=run)


def smoke_run(suites: Path) -> Run:
    """A queued thought_only run of the smoke suite on its script."""
    return eval_run_create(
        suite_path=suites / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )


def lines_of(path: Path) -> list[str]:
    return [line for line in path.read_text("utf-8").splitlines() if line.strip()]


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stored_counts() -> tuple[int, int, int, int]:
    return (
        Benchmark.objects.count(),
        SuiteVersion.objects.count(),
        Run.objects.count(),
        CaseResult.objects.count(),
    )
