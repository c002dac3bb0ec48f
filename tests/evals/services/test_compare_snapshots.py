"""A stored snapshot against the latest completed runs: the gate's verdict
in snapshot mode, the runs whose cases are compared, and the notes for
baseline runs this database does not hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.errors import NotFound
from evals.core.baselines import snapshot_from_runs
from evals.models import BaselineSnapshot, Benchmark, CaseResult, Run
from evals.services.compare import run_summary_of
from evals.services.compare_snapshots import comparison_for_snapshot

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def posted_run(
    benchmark_id: str, run_id: str, cases: dict[str, bool], *, minutes: int = 0
) -> Run:
    """A completed run as if posted over REST, with its case results."""
    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id=benchmark_id,
        defaults={"kind": Benchmark.Kind.PACK, "title": benchmark_id},
    )
    passed = sum(cases.values())
    when = T0 + timedelta(minutes=minutes)
    run = Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status=Run.Status.COMPLETED,
        source=Run.Source.API,
        started_at=when,
        completed_at=when + timedelta(seconds=30),
        total_cases=len(cases),
        passed_cases=passed,
        failed_cases=len(cases) - passed,
    )
    CaseResult.objects.bulk_create(
        CaseResult(run=run, case_id=case_id, passed=ok, details={})
        for case_id, ok in sorted(cases.items())
    )
    return run


def store_snapshot(snapshot_id: str, runs: list[Run]) -> BaselineSnapshot:
    document = snapshot_from_runs(
        [run_summary_of(run, None) for run in runs],
        snapshot_id=snapshot_id,
        created_at="2026-03-01T00:00:00Z",
        source_root_dir="evalsite database",
    )
    return BaselineSnapshot.objects.create(
        snapshot_id=snapshot_id, created_at=T0, document=document.to_wire()
    )


def test_latest_run_is_judged_against_the_snapshot_with_its_flips() -> None:
    base = posted_run("pack", "r1", {"a": True, "b": True})
    store_snapshot("main", [base])
    posted_run("pack", "r2", {"a": True, "b": False}, minutes=5)

    comparison = comparison_for_snapshot(snapshot_id="main")

    assert comparison.mode == "snapshot"
    assert comparison.snapshot_id == "main"
    assert comparison.verdict.passed is False
    (section,) = comparison.sections
    assert (section.base_run_id, section.candidate_run_id) == ("r1", "r2")
    (pair,) = comparison.pairs
    assert (pair.base_run_id, pair.candidate_run_id) == ("r1", "r2")
    assert [c.case_id for c in comparison.cases] == ["b", "a"]


def test_snapshot_with_a_missing_benchmark_fails_like_the_gate() -> None:
    posted_run("kept", "k1", {"a": True})
    gone = posted_run("gone", "g1", {"a": True})
    store_snapshot("nightly", [Run.objects.get(run_id="k1"), gone])
    Run.objects.filter(pk=gone.pk).update(status=Run.Status.FAILED)

    comparison = comparison_for_snapshot(snapshot_id="nightly")

    assert comparison.verdict.regressions == (
        "candidate is missing latest completed benchmark run for gone",
    )
    assert comparison.verdict.missing_candidate_benchmarks == ("gone",)


def test_snapshot_run_not_in_database_gets_a_note_and_no_cases() -> None:
    run = posted_run("pack", "r1", {"a": True})
    store_snapshot("imported", [run])
    BaselineSnapshot.objects.filter(snapshot_id="imported").update(
        document={
            **BaselineSnapshot.objects.get(snapshot_id="imported").document,
            "benchmarks": [
                {"benchmarkId": "pack", "runId": "elsewhere", "passRate": 1.0}
            ],
        }
    )

    comparison = comparison_for_snapshot(snapshot_id="imported")

    assert comparison.cases == ()
    assert comparison.pairs == ()
    assert comparison.notes == (
        "pack: baseline run elsewhere has no case results in this database, "
        "so its cases are not compared.",
    )
    assert comparison.verdict.passed is True


def test_unknown_snapshot_is_not_found() -> None:
    with pytest.raises(NotFound):
        comparison_for_snapshot(snapshot_id="nope")
