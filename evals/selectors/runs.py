"""Reads of runs and their case results.

Every function here reads and never writes. Case rows of any number of runs
come back in ONE query, as narrow tuples without the (large) scenario
artifact; only the drill-down reads the two artifacts it shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import (
    Count,
    F,
    Max,
    OuterRef,
    QuerySet,
    Subquery,
    TextField,
)
from django.db.models.functions import Cast, Coalesce

from core.errors import NotFound
from evals.core.compare import CaseRow
from evals.core.scenario_artifact import ScenarioArtifact, is_scenario_artifact
from evals.models import (
    Benchmark,
    CaseResult,
    Run,
)
from evalsite.paths import shown


def run_get(*, run_id: str) -> Run:
    """A run of any benchmark with its benchmark; ``NotFound`` if absent."""
    run = Run.objects.select_related("benchmark").filter(run_id=run_id).first()
    if run is None:
        raise NotFound(f"no run {run_id!r}", details={"runId": run_id})
    return run


def runs_by_id(run_ids: Iterable[str]) -> dict[str, Run]:
    """The runs among ``run_ids`` that exist, keyed by run id (one query)."""
    wanted = sorted(set(run_ids))
    if not wanted:
        return {}
    runs = Run.objects.select_related("benchmark").filter(run_id__in=wanted)
    return {run.run_id: run for run in runs}


def run_list(
    *,
    benchmark_id: str | None = None,
    status: str | None = None,
    source: str | None = None,
) -> QuerySet[Run]:
    """Runs of every benchmark, newest first (started, then pk)."""
    runs = Run.objects.select_related("benchmark")
    if benchmark_id:
        # By the benchmark's pk, not a join on its id: with the value known,
        # the planner walks this benchmark's runs (run_benchmark_newest_idx)
        # instead of every benchmark's, newest first, for a page of its own.
        pk = (
            Benchmark.objects.filter(benchmark_id=benchmark_id)
            .values_list("pk", flat=True)
            .first()
        )
        runs = runs.filter(benchmark_id=pk) if pk is not None else runs.none()
    if status:
        runs = runs.filter(status=status)
    if source:
        runs = runs.filter(source=source)
    return runs.order_by("-started_at", "-pk")


def harness_run_list(
    *,
    suite: str | None = None,
    status: str | None = None,
    verdict: str | None = None,
) -> QuerySet[Run]:
    """Harness runs, newest first, filtered by suite id, status and verdict
    (``pass``/``fail``; a run still going has none)."""
    runs = Run.objects.select_related("benchmark")
    suites = Benchmark.objects.filter(kind=Benchmark.Kind.SUITE)
    if suite:
        suites = suites.filter(benchmark_id=suite)
    # By the suites' pks (a few), not a join on their kind: the planner then
    # walks the newest runs (one suite's own index for one suite) from where
    # the page starts, instead of sorting every run of every suite.
    pks = list(suites.values_list("pk", flat=True))
    runs = runs.filter(benchmark_id__in=pks) if pks else runs.none()
    if status:
        runs = runs.filter(status=status)
    if verdict == "pass":
        runs = runs.filter(verdict_passed=True)
    elif verdict == "fail":
        runs = runs.filter(verdict_passed=False)
    return runs.order_by("-started_at", "-pk")


def recent_run_ids(limit: int = 50) -> list[str]:
    return list(
        Run.objects.order_by("-started_at", "-pk").values_list("run_id", flat=True)[
            :limit
        ]
    )


def runs_in_pks(pks: Iterable[int | None]) -> dict[int, Run]:
    wanted = [pk for pk in pks if pk is not None]
    return {run.pk: run for run in Run.objects.filter(pk__in=wanted)}


def _recency() -> Any:
    return Coalesce(F("completed_at"), F("started_at"))


def latest_completed_runs(benchmark_ids: Iterable[str]) -> dict[str, Run]:
    """The latest completed run of each of ``benchmark_ids`` (one query).

    Latest as the gate means it: newest completedAt, else startedAt; a tie
    goes to the greater run id.
    """
    wanted = sorted(set(benchmark_ids))
    if not wanted:
        return {}
    # One probe of run_latest_completed_idx per benchmark: the subquery is
    # correlated with the benchmark row, not with each of its runs (which
    # ran it once per run of the benchmark).
    newest = (
        Run.objects.filter(benchmark=OuterRef("pk"), status=Run.Status.COMPLETED)
        .annotate(recency=_recency())
        .order_by("-recency", "-run_id")
        .values("pk")[:1]
    )
    latest = Benchmark.objects.filter(benchmark_id__in=wanted).annotate(
        latest=Subquery(newest)
    )
    runs = Run.objects.select_related("benchmark").filter(
        pk__in=latest.values("latest")
    )
    return {run.benchmark.benchmark_id: run for run in runs}


def case_rows(run_pks: Sequence[int]) -> dict[int, list[CaseRow]]:
    """Case rows of each run, keyed by run pk, sorted by case id (one query).

    ``details`` is never read here: a scenario artifact holds the rendered
    frame and outputs, and reading 10,000 of them would dominate the page.
    """
    out: dict[int, list[CaseRow]] = {pk: [] for pk in run_pks}
    if not run_pks:
        return out
    rows = (
        CaseResult.objects.filter(run_id__in=list(run_pks))
        .order_by("run_id", "case_id")
        .values_list(
            "run_id",
            "case_id",
            "passed",
            "latency_ms",
            "stimulus_kind",
            "affordance",
            # As text: cases share a few tag lists, each parsed once.
            Cast("tags", TextField()),
            "error",
        )
    )
    parsed: dict[str | None, tuple[str, ...]] = {}
    for run_pk, case_id, passed, latency, kind, affordance, tags, error in rows:
        shown = parsed.get(tags)
        if shown is None:
            shown = parsed[tags] = _tag_tuple(tags)
        out[run_pk].append(
            CaseRow(case_id, passed, latency, kind, affordance, shown, error)
        )
    return out


def _tag_tuple(text: str | None) -> tuple[str, ...]:
    loaded = json.loads(text) if text else None
    return tuple(str(tag) for tag in loaded or ())


def case_pair(
    *, base: Run | None, candidate: Run | None, case_id: str
) -> tuple[CaseResult | None, CaseResult | None]:
    """The case ``case_id`` of both runs, artifacts included (one query)."""
    pks = [run.pk for run in (base, candidate) if run is not None]
    found = {
        case.run_id: case
        for case in CaseResult.objects.filter(run_id__in=pks, case_id=case_id)
    }
    return (
        found.get(base.pk) if base is not None else None,
        found.get(candidate.pk) if candidate is not None else None,
    )


def in_suite_order(cases: Iterable[CaseResult]) -> list[CaseResult]:
    """Case results of a harness run in suite order (then case id)."""
    return sorted(cases, key=lambda c: (_suite_line(c), c.case_id))


def _suite_line(case: CaseResult) -> int:
    """Where a scenario case sits in its suite (0: details of another shape)."""
    details = case.details
    if not is_scenario_artifact(details):
        return 0
    return ScenarioArtifact.from_wire(details).suite_line


def run_cases(run: Run) -> list[CaseResult]:
    """A run's case results in suite order."""
    # By case id, in uniq_case_per_run's order: the model's ordering
    # ("run", then case id) orders by the run's own ordering, a join with the
    # runs and a sort of every case.
    return in_suite_order(run.case_results.order_by("case_id"))


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


SERVER_PATH_KEYS = ("suitePath", "script")


def run_config_shown(config: dict[str, Any]) -> dict[str, Any]:
    """A run's configuration as users see it: the suite and script files
    relative to the suites directory, never where the server keeps them."""
    return {
        key: shown(value)
        if key in SERVER_PATH_KEYS and isinstance(value, str)
        else value
        for key, value in config.items()
    }


def case_fingerprints(run_pks: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Per run, how many case results it has and its newest case row's pk
    (one query): the case rows changed when either did."""
    rows = (
        CaseResult.objects.filter(run_id__in=list(run_pks))
        .values_list("run_id")
        .annotate(count=Count("id"), newest=Max("id"))
        .order_by()
    )
    found = {run_pk: (count, newest) for run_pk, count, newest in rows}
    return {pk: found.get(pk, (0, 0)) for pk in run_pks}
