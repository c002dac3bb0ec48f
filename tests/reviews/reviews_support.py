"""Builders for the reviews tests: a run with case results stored directly
(fast; no harness), score configs, a queue with its reviewers, and a
reviewer's score of a case stored directly."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from reviews.models import ReviewQueue, Score, Subject
from reviews.services.configs import config_create
from reviews.services.queues import queue_create

T0 = datetime(2026, 3, 6, 12, 0, tzinfo=UTC)


def run_with_cases(
    run_id: str,
    cases: Mapping[str, bool | tuple[bool, str | None]],
    *,
    benchmark_id: str = "suite-a",
) -> Any:
    """A completed run of ``benchmark_id`` with one case result per entry:
    ``passed`` or ``(passed, hallucination category)``."""
    from evals.models import Benchmark, CaseResult, Run

    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id=benchmark_id, defaults={"kind": "suite", "title": benchmark_id}
    )
    run = Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status="completed",
        source="harness",
        started_at=T0,
        total_cases=len(cases),
    )
    for case_id, outcome in cases.items():
        passed, category = outcome if isinstance(outcome, tuple) else (outcome, None)
        details = {"hallucination": category} if category else {}
        CaseResult.objects.create(
            run=run, case_id=case_id, passed=passed, details=details
        )
    return run


def configs_make() -> dict[str, Any]:
    """Three configs: ``quality`` 1..5, ``verdict`` good/bad/unclear,
    ``grounded`` yes/no."""
    return {
        "quality": config_create(
            name="quality", kind="numeric", min_value=1, max_value=5
        ),
        "verdict": config_create(
            name="verdict", kind="categorical", labels=["good", "bad", "unclear"]
        ),
        "grounded": config_create(name="grounded", kind="boolean"),
    }


def queue_make(
    configs: list[Any],
    members: list[Any],
    *,
    assignment: str = ReviewQueue.Assignment.ROUND_ROBIN,
    overlap_percent: int = 0,
    name: str = "queue",
) -> ReviewQueue:
    return queue_create(
        name=name,
        configs=configs,
        assignment=assignment,
        overlap_percent=overlap_percent,
        members=members,
    )


def scenario_refs(run_id: str, count: int) -> list[tuple[str, str]]:
    """``(kind, ref)`` of cases c00..c<count-1> of run ``run_id``."""
    return [("scenario_result", f"{run_id}/c{i:02d}") for i in range(count)]


def cases_of(count: int, *, passed: bool = True) -> dict[str, bool]:
    return {f"c{i:02d}": passed for i in range(count)}


def scenario_score(
    config: Any, run_id: str, case_id: str, user: Any, **fields: Any
) -> Any:
    """A review score ``user`` gave the case ``case_id`` of the run
    ``run_id`` under ``config``, stored directly; ``fields`` gives its value
    (``value_number``, ``value_label``) and anything else."""
    return Score.objects.create(
        config=config,
        kind=Subject.SCENARIO_RESULT,
        ref=f"{run_id}/{case_id}",
        run_id=run_id,
        case_id=case_id,
        source=Score.Source.REVIEW,
        author=user,
        **fields,
    )
