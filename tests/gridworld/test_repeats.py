"""Repeats on gridworld batches: K epochs of the batch's episodes, each
episode with its own seed, case ids ``episode-<i>#<e>``; a batch without
repeats is the batch it always was; bad repeats store nothing."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from core.errors import SchemaInvalid
from evals.services.runs.lifecycle import run_execute
from gridworld.models import Episode, EpisodeBatch
from gridworld.services.batches import batch_create, case_id, case_index
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db

CONFIG = {"map": "hazard", "episodes": 3, "seed": 7}


def stored() -> tuple[int, int]:
    return EpisodeBatch.objects.count(), Episode.objects.count()


def test_a_batch_with_three_repeats_plays_three_epochs_of_its_episodes() -> None:
    batch = batch_create(config={**CONFIG, "repeats": 3}, schedule=False)
    run = run_execute(run=batch.run)
    ids = sorted(run.case_results.values_list("case_id", flat=True))
    assert ids == sorted(f"episode-{i}#{e}" for i in range(3) for e in range(3))
    seeds = sorted(Episode.objects.filter(batch=batch).values_list("seed", flat=True))
    assert len(set(seeds)) == 9  # every episode its own seed
    assert run.config["repeats"] == 3
    assert run.status == "completed"


def test_epoch_0_of_a_batch_with_repeats_is_the_batch_without() -> None:
    plain = batch_create(config=CONFIG, schedule=False)
    run_execute(run=plain.run)
    repeated = batch_create(config={**CONFIG, "repeats": 2}, schedule=False)
    run_execute(run=repeated.run)
    first = {e.index: e.receipt_digest for e in Episode.objects.filter(batch=plain)}
    epoch_0 = {
        e.index: e.receipt_digest
        for e in Episode.objects.filter(batch=repeated, index__lt=3)
    }
    assert "repeats" not in plain.run.config
    assert sorted(plain.run.case_results.values_list("case_id", flat=True)) == [
        "episode-0",
        "episode-1",
        "episode-2",
    ]
    assert epoch_0 == first


def test_case_ids_and_episode_indices_read_back() -> None:
    for index in range(12):
        name = case_id(index, repeats=4, total=12)
        assert case_index(name, repeats=4, total=12) == index
    assert case_id(5) == "episode-5"
    assert case_id(5, repeats=4, total=12) == "episode-2#1"


@pytest.mark.parametrize("bad", [0, 101, "x", 2.5, True])
def test_bad_repeats_is_refused_naming_the_field(bad: Any) -> None:
    before = stored()
    with pytest.raises(SchemaInvalid) as caught:
        batch_create(config={**CONFIG, "repeats": bad}, schedule=False)
    assert [p.path for p in caught.value.problems] == ["repeats"]
    assert stored() == before


def test_too_many_episodes_in_all_is_refused_on_repeats() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        batch_create(
            config={**CONFIG, "episodes": 2000, "repeats": 100}, schedule=False
        )
    assert [p.path for p in caught.value.problems] == ["repeats"]


def test_api_takes_repeats_and_refuses_bad_ones(
    owner: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = APIClient()
    client.force_authenticate(owner)
    before = stored()
    bad = client.post("/api/gridworld/batches", {**CONFIG, "repeats": 0}, format="json")
    assert bad.status_code == 400
    assert list(error_fields(bad)) == ["$.repeats"]
    assert stored() == before
    with django_capture_on_commit_callbacks(execute=True):
        good = client.post(
            "/api/gridworld/batches", {**CONFIG, "repeats": 2}, format="json"
        )
    assert good.status_code == 202
    batch = EpisodeBatch.objects.get()
    assert batch.run.case_results.count() == 6


def test_gridworld_run_takes_repeats_and_exits_2_on_bad_ones() -> None:
    out = StringIO()
    call_command(
        "gridworld_run", "--map", "hazard", "--episodes", "2", "--repeats", "2",
        "--wait", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    assert EpisodeBatch.objects.get().run.case_results.count() == 4
    before = stored()
    with pytest.raises(CommandError) as caught:
        call_command(
            "gridworld_run", "--map", "hazard", "--episodes", "2", "--repeats", "x",
            stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    assert caught.value.returncode == 2
    assert stored() == before


def test_an_epoch_case_of_a_batch_opens_its_episode(owner_client: Any) -> None:
    batch = batch_create(config={**CONFIG, "repeats": 2}, schedule=False)
    run = run_execute(run=batch.run)
    response = owner_client.get(f"/evals/runs/{run.run_id}/scenarios/episode-1%231/")
    assert response.status_code == 302
    # Epoch 1 of episode 1 in a batch of 3 episodes per epoch: episode 4.
    assert response["Location"] == f"/gridworld/runs/{run.run_id}/episodes/4/"
