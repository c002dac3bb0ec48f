"""The run lifecycle with an executor that is not the harness: what a second
benchmark kind (gridworld batches) relies on."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection

from core.errors import CoreError
from evals.models import CaseResult, Run
from evals.services.runs import executors
from evals.services.runs.executors import (
    BaseCaseExecutor,
    CaseRecord,
    RunBroken,
    RunVerdict,
    executor_for,
)
from evals.services.runs.lifecycle import (
    run_chunk_execute,
    run_create,
    run_execute,
    run_finalize,
    run_resume,
)
from evals.services.runs.recording import CaseRecorder
from tests.builders import benchmark_make

pytestmark = pytest.mark.django_db

STARTED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class Episodes(BaseCaseExecutor):
    """Case ``episode-<i>`` passes when ``i`` is even; ``boom`` in the run's
    config makes ``prepare`` refuse."""

    def __init__(self) -> None:
        self.executed: list[str] = []
        self.finished_runs: list[str] = []

    def case_ids(self, run: Run) -> list[str]:
        return [f"episode-{i}" for i in range(run.total_cases)]

    def prepare(self, run: Run) -> Any:
        if run.config.get("boom"):
            raise RunBroken("the map is gone", code="map_gone")
        return {"seed": run.config.get("seed", 0)}

    def execute(
        self,
        run: Run,
        context: Any,
        case_ids: Sequence[str],
        recorder: CaseRecorder,
    ) -> None:
        for case_id in case_ids:
            self.executed.append(case_id)
            index = int(case_id.rsplit("-", 1)[1])
            recorder.add(
                CaseRecord(
                    case_id=case_id,
                    passed=index % 2 == 0,
                    latency_ms=float(index),
                    details={"seed": context["seed"]},
                    metric_inputs={"steps": index * 10},
                )
            )

    def verdict(
        self, run: Run, cases: Sequence[CaseResult], *, missing: int, failed: bool
    ) -> RunVerdict:
        ordered = sorted(cases, key=lambda c: int(c.case_id.rsplit("-", 1)[1]))
        steps = sum(c.details["metricInputs"]["steps"] for c in ordered)
        return RunVerdict(
            metrics={"steps": steps, "episodes": len(ordered)},
            passed=not missing and not failed,
            failed_properties=("all_episodes_ran",) if missing else (),
            errored_cases=0,
            cases=ordered,
        )

    def finished(self, run: Run, verdict: RunVerdict) -> None:
        self.finished_runs.append(run.run_id)


@pytest.fixture
def episodes(monkeypatch: pytest.MonkeyPatch) -> Episodes:
    executor = Episodes()
    monkeypatch.setitem(executors._EXECUTORS, "toy", executor)
    return executor


def make_run(total: int = 4, **config: Any) -> Run:
    benchmark = benchmark_make("toy-map", kind="toy")
    return run_create(
        benchmark=benchmark,
        run_id=f"run-{Run.objects.count() + 1}",
        started_at=STARTED,
        total_cases=total,
        config=dict(config),
        schedule=False,
    )


def test_a_second_kind_runs_through_the_lifecycle(episodes: Episodes) -> None:
    run = make_run(total=4)
    assert run.status == Run.Status.QUEUED
    assert run.summary["status"] == "running"

    run = run_execute(run=run)

    assert (run.status, run.passed_cases, run.failed_cases) == ("completed", 2, 2)
    assert run.metrics == {"steps": 60, "episodes": 4}
    assert run.verdict_passed is True
    assert run.summary["caseResults"][1] == {
        "caseId": "episode-1",
        "passed": False,
        "durationMs": 1.0,
    }
    stored = CaseResult.objects.get(run=run, case_id="episode-3")
    assert stored.details == {"seed": 0, "metricInputs": {"steps": 30}}
    assert episodes.finished_runs == [run.run_id]


def test_a_redelivered_chunk_never_doubles_a_case(episodes: Episodes) -> None:
    run = make_run(total=3)

    first = run_chunk_execute(run_pk=run.pk, case_ids=["episode-0", "episode-1"])
    again = run_chunk_execute(
        run_pk=run.pk, case_ids=["episode-0", "episode-1", "episode-2"]
    )

    run.refresh_from_db()
    assert (first, again) == (2, 1)
    assert episodes.executed == ["episode-0", "episode-1", "episode-2"]
    assert run.progress_done == 3
    assert run.case_results.count() == 3


@pytest.fixture(params=["returning", "checked"])
def insert_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways a batch is stored: one INSERT ... ON CONFLICT DO NOTHING
    RETURNING, or (a database without RETURNING) filter, then insert."""
    if request.param == "checked":
        monkeypatch.setattr(
            type(connection.features), "can_return_rows_from_bulk_insert", False
        )
    return str(request.param)


def test_a_case_a_parallel_chunk_stored_is_skipped_and_never_counted(
    insert_path: str,
) -> None:
    run = make_run(total=4)
    recorder = CaseRecorder(run, on_progress=None)
    recorder.record_now([CaseRecord(case_id="episode-1", passed=True)])

    stored = recorder.record_now(
        [
            CaseRecord(case_id="episode-0", passed=True, details={"n": 0}),
            CaseRecord(case_id="episode-1", passed=False, details={"n": 1}),
            CaseRecord(case_id="episode-2", passed=False, tags=("a", "b")),
            CaseRecord(case_id="episode-2", passed=True),
        ]
    )

    run.refresh_from_db()
    assert (stored, recorder.recorded, run.progress_done) == (2, 3, 3)
    rows = {c.case_id: c for c in run.case_results.all()}
    assert sorted(rows) == ["episode-0", "episode-1", "episode-2"]
    assert rows["episode-1"].passed is True  # the first one stored stays
    assert rows["episode-0"].details == {"n": 0}
    assert (rows["episode-2"].passed, rows["episode-2"].tags) == (False, ["a", "b"])


def test_a_document_given_encoded_is_stored_as_given(insert_path: str) -> None:
    run = make_run(total=2)
    details = {"b": ["é", 1.5], "a": None}
    CaseRecorder(run, on_progress=None).record_now(
        [
            CaseRecord(
                case_id="episode-0",
                passed=True,
                latency_ms=2.5,
                error="late",
                stimulus_kind="novel",
                affordance="encouraged",
                details=details,
                details_json=json.dumps(details, indent=2, ensure_ascii=False),
            ),
            CaseRecord(
                case_id="episode-1",
                passed=True,
                details=details,
                details_json="{}",
                metric_inputs={"steps": 3},
            ),
        ]
    )

    first, second = run.case_results.order_by("case_id")
    assert first.details == details
    assert (first.latency_ms, first.error, first.stimulus_kind, first.affordance) == (
        2.5,
        "late",
        "novel",
        "encouraged",
    )
    # metric inputs change the document: it is encoded again, with them.
    assert second.details == {**details, "metricInputs": {"steps": 3}}


def test_a_half_done_run_finalizes_partial(episodes: Episodes) -> None:
    run = make_run(total=3)
    run_chunk_execute(run_pk=run.pk, case_ids=["episode-0"])

    run = run_finalize(run_pk=run.pk)
    again = run_finalize(run_pk=run.pk)

    assert (run.status, run.failed_properties) == ("partial", ["all_episodes_ran"])
    assert again.completed_at == run.completed_at
    assert episodes.finished_runs == [run.run_id]


def test_a_broken_run_is_failed_before_any_case(
    episodes: Episodes, caplog: pytest.LogCaptureFixture
) -> None:
    run = make_run(total=2, boom=True)

    with caplog.at_level("ERROR"):
        recorded = run_chunk_execute(run_pk=run.pk, case_ids=["episode-0"])

    run.refresh_from_db()
    assert recorded == 0
    assert episodes.executed == []
    assert run.status == Run.Status.FAILED
    assert run.error == "the map is gone"
    assert f"[Eval] run_failed run_id={run.run_id} reason=map_gone" in caplog.messages


def test_resume_sends_only_the_missing_cases(
    episodes: Episodes, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.EVALS_CHUNK_SIZE = 2
    run = make_run(total=5)
    run_chunk_execute(run_pk=run.pk, case_ids=["episode-0", "episode-1"])

    with django_capture_on_commit_callbacks(execute=True):
        chunks = run_resume(run_pk=run.pk)

    run.refresh_from_db()
    # Eager Celery ran the chord: episodes 2..4 in two chunks, then finalize.
    assert chunks == 2
    assert episodes.executed == [f"episode-{i}" for i in range(5)]
    assert (run.status, run.progress_done) == ("completed", 5)
    assert run_resume(run_pk=run.pk) == 0


def test_a_kind_without_executor_is_refused() -> None:
    with pytest.raises(CoreError) as caught:
        executor_for("pack")
    assert caught.value.code == "no_executor"
