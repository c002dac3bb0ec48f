"""Reads of the harness pages and API: runs of suites, their cases and files."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db.models import QuerySet

from core.errors import NotFound
from evals.models import Benchmark, CaseResult, Run
from evals.services.harness.finish import suite_cases


def eval_run_list(
    *,
    suite: str | None = None,
    status: str | None = None,
    verdict: str | None = None,
) -> QuerySet[Run]:
    """Harness runs, newest first, filtered by suite id, status and verdict
    (``pass``/``fail``; a run still going has none)."""
    runs = Run.objects.select_related("benchmark").filter(
        benchmark__kind=Benchmark.Kind.SUITE
    )
    if suite:
        runs = runs.filter(benchmark__benchmark_id=suite)
    if status:
        runs = runs.filter(status=status)
    if verdict == "pass":
        runs = runs.filter(verdict_passed=True)
    elif verdict == "fail":
        runs = runs.filter(verdict_passed=False)
    return runs.order_by("-started_at", "-pk")


def eval_run_get(*, run_id: str) -> Run:
    run = Run.objects.select_related("benchmark").filter(run_id=run_id).first()
    if run is None:
        raise NotFound(f"no run {run_id!r}")
    return run


def run_cases(run: Run) -> list[CaseResult]:
    """A run's case results in suite order."""
    return suite_cases(run.case_results.all())


def run_artifact_path(run: Run, relative: str) -> Path:
    """The file ``relative`` of the run's bundle, refusing anything outside
    the artifacts root or the run directory (``NotFound``)."""
    root = Path(settings.EVALS_ARTIFACTS_DIR).resolve()
    run_dir = Path(run.artifacts_dir).resolve() if run.artifacts_dir else None
    if run_dir is None or not run_dir.is_relative_to(root):
        raise NotFound("this run has no artifacts under the artifacts root")
    path = (run_dir / relative).resolve()
    if not path.is_relative_to(run_dir) or path.suffix != ".json":
        raise NotFound(f"no artifact {relative!r}")
    if not path.is_file():
        raise NotFound(f"no artifact {relative!r}")
    return path


def run_progress(run: Run) -> dict[str, int]:
    return {"done": run.progress_done, "total": run.total_cases}
