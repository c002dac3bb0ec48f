"""A finished batch is a run like any other: resume, baselines, compare, trends."""

from __future__ import annotations

from typing import Any

import pytest

from evals.models import Run
from evals.services.runs.lifecycle import run_chunk_execute, run_execute, run_resume
from gridworld.models import Episode
from gridworld.services.batches import batch_create

pytestmark = pytest.mark.django_db

CONFIG = {"map": "hazard", "episodes": 6, "seed": 3, "lane_size": 3}


def test_resume_plays_only_the_missing_episodes(
    django_capture_on_commit_callbacks: Any,
) -> None:
    batch = batch_create(config=CONFIG, schedule=False)
    run_chunk_execute(run_pk=batch.run.pk, case_ids=["episode-0", "episode-4"])
    kept = dict(Episode.objects.values_list("index", "receipt_digest"))
    with django_capture_on_commit_callbacks(execute=True):
        assert run_resume(run_pk=batch.run.pk) == 1
    run = Run.objects.get(pk=batch.run.pk)
    assert run.status == Run.Status.COMPLETED
    assert Episode.objects.count() == 6
    assert (
        dict(
            Episode.objects.filter(index__in=[0, 4]).values_list(
                "index", "receipt_digest"
            )
        )
        == kept
    )


def test_compare_and_trends_show_two_batches(owner_client: Any) -> None:
    first = run_execute(run=batch_create(config=CONFIG, schedule=False).run)
    second = run_execute(
        run=batch_create(config={**CONFIG, "seed": 50}, schedule=False).run
    )
    compare = owner_client.get(
        f"/evals/compare?base={first.run_id}&candidate={second.run_id}"
    )
    assert compare.status_code == 200
    html = compare.content.decode()
    assert "success_rate" in html
    assert "safety_violations" in html
    assert "episode-5" in html
    trends = owner_client.get(
        "/evals/trends?benchmark=gridworld:hazard:planner:lexicographic&metric=success_rate"
    )
    assert trends.status_code == 200
    assert second.run_id in trends.content.decode()
