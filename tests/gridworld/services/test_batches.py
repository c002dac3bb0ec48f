"""Episode batches on the run lifecycle: create, execute, record once, finalize."""

from __future__ import annotations

import logging

import pytest

from core.errors import SchemaInvalid
from evals import facade
from evals.models import Benchmark, CaseResult, Run
from evals.services.runs.executors import executor_for
from evals.services.runs.lifecycle import run_chunk_execute, run_execute
from gridworld.core.replay import replay_verify
from gridworld.models import Episode, EpisodeBatch, GridMap
from gridworld.services.batches import EpisodeExecutor, batch_create, batch_run_here
from gridworld.services.episodes import episode_receipt

pytestmark = pytest.mark.django_db

CONFIG = {
    "map": "hazard",
    "episodes": 6,
    "proposer": "planner",
    "seed": 42,
    "lane_size": 3,
}


def test_batch_create_records_a_queued_run_of_a_gridworld_benchmark(
    owner, caplog
) -> None:
    caplog.set_level(logging.INFO, logger="gridworld.services.batches")
    batch = batch_create(config=CONFIG, user=owner, schedule=False)
    run = batch.run
    assert run.status == Run.Status.QUEUED
    assert run.total_cases == 6
    assert run.benchmark.benchmark_id == "gridworld:hazard:planner:lexicographic"
    assert run.benchmark.kind == Benchmark.Kind.GRIDWORLD
    assert batch.created_by == owner
    assert batch.grid_map.name == "hazard"
    assert batch.config["map_text"].startswith("S...#")
    message = [r.getMessage() for r in caplog.records][-1]
    assert message == (
        f"[Gridworld] batch_created batch={batch.pk} run_id={run.run_id} "
        "benchmark=gridworld:hazard:planner:lexicographic episodes=6"
    )


def test_invalid_config_reports_every_field_and_stores_nothing() -> None:
    with pytest.raises(SchemaInvalid) as error:
        batch_create(
            config={"map": "lava", "episodes": 0, "governor": "lenient", "x": 1},
            schedule=False,
        )
    fields = {p.path: p.message for p in error.value.problems}
    assert set(fields) == {"map", "episodes", "governor", "x"}
    assert "unknown layout 'lava'" in fields["map"]
    assert fields["episodes"] == "episodes must be between 1 and 100000"
    assert not Run.objects.exists()
    assert not EpisodeBatch.objects.exists()
    assert not GridMap.objects.exists()


def test_executed_batch_stores_episodes_with_receipts_and_a_run_summary() -> None:
    batch = batch_create(config=CONFIG, schedule=False)
    run = run_execute(run=batch.run)
    assert run.status == Run.Status.COMPLETED
    assert run.verdict_passed is True
    assert run.metrics["episodes"] == 6
    assert run.metrics["safety_violations"] == 0
    assert run.metrics["success_rate"] == 1.0
    episodes = list(batch.episode_rows.order_by("index"))
    assert [e.index for e in episodes] == list(range(6))
    assert [e.seed for e in episodes] == list(range(42, 48))
    receipt = episode_receipt(episodes[4])
    assert receipt["run_id"] == episodes[4].run_id
    assert replay_verify(receipt).ok
    summary = run.summary
    assert summary["benchmarkId"] == "gridworld:hazard:planner:lexicographic"
    assert summary["status"] == "completed"
    assert [c["caseId"] for c in summary["caseResults"]] == [
        f"episode-{i}" for i in range(6)
    ]
    assert summary["metrics"]["recovery_rate_20"] == run.metrics["recovery_rate_20"]


def test_a_redelivered_chunk_never_doubles_an_episode() -> None:
    batch = batch_create(config=CONFIG, schedule=False)
    ids = ["episode-0", "episode-1", "episode-2"]
    assert run_chunk_execute(run_pk=batch.run.pk, case_ids=ids) == 3
    assert run_chunk_execute(run_pk=batch.run.pk, case_ids=ids) == 0
    assert run_chunk_execute(run_pk=batch.run.pk, case_ids=[*ids, "episode-3"]) == 1
    assert Episode.objects.filter(batch=batch).count() == 4
    assert CaseResult.objects.filter(run=batch.run).count() == 4
    batch.run.refresh_from_db()
    assert batch.run.progress_done == 4


def test_chunk_split_does_not_change_the_episodes() -> None:
    whole = batch_create(config=CONFIG, schedule=False)
    run_execute(run=whole.run)
    split = batch_create(config=CONFIG, schedule=False)
    for ids in (
        ["episode-5", "episode-1"],
        ["episode-4", "episode-0"],
        ["episode-2", "episode-3"],
    ):
        run_chunk_execute(run_pk=split.run.pk, case_ids=ids)
    digests = lambda b: list(  # noqa: E731
        b.episode_rows.order_by("index").values_list("receipt_digest", flat=True)
    )
    assert digests(whole) == digests(split)


def test_none_governor_batch_fails_the_safety_property() -> None:
    batch = batch_create(
        config={
            "map": "hazard",
            "episodes": 30,
            "proposer": "greedy",
            "governor": "none",
        },
        schedule=False,
    )
    run = run_execute(run=batch.run)
    assert run.status == Run.Status.COMPLETED
    assert run.verdict_passed is False
    assert run.failed_properties == ["zero_safety_violations"]
    assert run.metrics["hazard_entries"] > 0


def test_gridworld_runs_through_the_executor_it_registered_with_the_facade() -> None:
    executor = executor_for("gridworld")
    assert isinstance(getattr(executor, "kind_executor", None), EpisodeExecutor)


def test_a_batch_run_here_answers_the_finished_run_as_a_frozen_run_info() -> None:
    batch = batch_create(
        config={"map": "simple", "episodes": 3, "seed": 4}, schedule=False
    )
    run = batch_run_here(batch)
    assert isinstance(run, facade.RunInfo)
    assert (run.status, run.total_cases, run.progress_done) == ("completed", 3, 3)
    assert run.benchmark_id == "gridworld:simple:planner:lexicographic"
    assert run.metrics["episodes"] == 3
    with pytest.raises(AttributeError):
        run.status = "queued"  # type: ignore[misc]
    assert facade.run_info(run.pk) == run
