"""A stored snapshot against the latest completed runs: the gate's verdict
in snapshot mode, the runs whose cases are compared, and the notes for
baseline runs this database does not hold."""

from __future__ import annotations

import pytest

from core.errors import NotFound
from evals.models import BaselineSnapshot, Run
from evals.services.compare_snapshots import comparison_for_snapshot
from tests.evals.compare_support import posted_run, store_snapshot

pytestmark = pytest.mark.django_db


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
