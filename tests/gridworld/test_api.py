"""REST: create a batch (runs on the workers), read batches, episodes and
receipts, verify an uploaded receipt; bad configs get 400 with field and reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.models import Run
from gridworld.models import EpisodeBatch
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db

CONFIG = {"map": "maze", "episodes": 4, "seed": 7, "lane_size": 2}


@pytest.fixture
def client(owner: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(owner)
    return api


def create(client: APIClient, capture: Any, config: dict = CONFIG) -> dict:
    with capture(execute=True):
        response = client.post("/api/gridworld/batches", config, format="json")
    assert response.status_code == 202, response.content
    return response.json()


def test_create_runs_the_batch_on_the_workers(
    client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    created = create(client, django_capture_on_commit_callbacks)
    assert created["status"] == "queued"
    assert created["benchmarkId"] == "gridworld:maze:planner:lexicographic"
    assert created["seeds"] == {"first": 7, "last": 10}
    batch = client.get(f"/api/gridworld/batches/{created['id']}").json()
    assert batch["status"] == "completed"
    assert batch["progress"] == {"done": 4, "total": 4}
    assert batch["verdict"] == {"pass": True, "failedProperties": []}
    assert batch["metrics"]["safety_violations"] == 0
    assert batch["createdBy"] == "alice"


def test_bad_config_is_400_with_every_field_and_nothing_stored(
    client: APIClient,
) -> None:
    response = client.post(
        "/api/gridworld/batches",
        {"map": "maze", "episodes": "many", "proposer": "oracle", "drift_period": -1},
        format="json",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error_fields(response) == {
        "$.drift_period": ["drift_period must be between 0 and 10000"],
        "$.episodes": ["episodes must be an integer"],
        "$.proposer": ["proposer must be one of greedy, planner"],
    }
    assert not Run.objects.exists()
    assert not EpisodeBatch.objects.exists()


def test_bad_map_text_names_the_field_and_line(client: APIClient) -> None:
    response = client.post(
        "/api/gridworld/batches",
        {"map": "mine", "map_text": "S.?\n..G\n", "episodes": 1},
        format="json",
    )
    assert response.status_code == 400
    assert error_fields(response) == {
        "$.map_text": ["line 1: unknown cell '?' at column 3"]
    }


def test_episodes_and_receipts_read_back_and_verify(
    client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    created = create(client, django_capture_on_commit_callbacks)
    pk = created["id"]
    listing = client.get(
        f"/api/gridworld/batches/{pk}/episodes?limit=2&offset=1"
    ).json()
    assert listing["count"] == 4
    assert [e["index"] for e in listing["results"]] == [1, 2]
    episode = client.get(f"/api/gridworld/batches/{pk}/episodes/2").json()
    assert episode["seed"] == 9
    response = client.get(f"/api/gridworld/batches/{pk}/episodes/2/receipt")
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith('episode-2.json"')
    receipt = json.loads(response.content)
    assert receipt["run_id"] == episode["runId"]
    verdict = client.post("/api/gridworld/verify", receipt, format="json").json()
    assert verdict == {
        "verified": True,
        "run_id": receipt["run_id"],
        "steps_checked": len(receipt["steps"]),
        "divergence": None,
    }
    receipt["steps"][1]["action_taken"] = "Stay"
    verdict = client.post("/api/gridworld/verify", receipt, format="json").json()
    assert verdict["verified"] is False
    assert verdict["divergence"]["step"] == 1
    assert verdict["divergence"]["field"] == "action_taken"


def test_verify_refuses_a_body_that_is_not_a_receipt(client: APIClient) -> None:
    response = client.post("/api/gridworld/verify", [1, 2], format="json")
    assert response.status_code == 400
    assert error_fields(response) == {
        "$": ["the body must be a gridworld run receipt (a JSON object)."]
    }
    # the schema declares config an object: anything else is refused as such
    response = client.post("/api/gridworld/verify", {"config": False}, format="json")
    assert response.status_code == 400
    assert error_fields(response) == {
        "$.config": ["a receipt's config is a JSON object."]
    }


def test_anonymous_callers_are_refused() -> None:
    response = APIClient().get("/api/gridworld/batches")
    assert response.status_code in (401, 403)


def test_unknown_batch_is_404(client: APIClient) -> None:
    assert client.get("/api/gridworld/batches/999").status_code == 404
    assert (
        client.get("/api/gridworld/batches/999/episodes/0/receipt").status_code == 404
    )


def test_verify_answers_400_for_a_receipt_whose_actions_are_not_in_the_space(
    client: APIClient, caplog: Any
) -> None:
    from gridworld.core.episode import EpisodeConfig, run_episode
    from gridworld.core.grid import standard_layout

    config = EpisodeConfig(
        map=standard_layout("simple"), seed=3, proposer="external", actions=("E", "S")
    )
    receipt = run_episode(config).receipt
    receipt["config"]["actions"] = ["E", "Jump"]
    caplog.set_level("INFO", logger="gridworld")
    response = client.post("/api/gridworld/verify", receipt, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "the receipt's config cannot be replayed"
    )
    assert error_fields(response) == {
        "$.config.actions": ["actions must be N, S, E, W or Stay"]
    }
    assert "receipt_verified" not in caplog.text


def test_camel_case_config_fields_are_the_snake_case_ones(
    client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    camel = {"map": "maze", "episodes": 2, "laneSize": 2, "maxSteps": 40}
    created = create(client, django_capture_on_commit_callbacks, camel)
    assert created["config"]["lane_size"] == 2
    assert created["config"]["max_steps"] == 40
    snake = {"map": "maze", "episodes": 2, "lane_size": 2, "max_steps": 40}
    again = create(client, django_capture_on_commit_callbacks, snake)
    assert again["config"] == created["config"]


def test_a_field_in_both_spellings_is_400_on_the_snake_case_field(
    client: APIClient,
) -> None:
    response = client.post(
        "/api/gridworld/batches",
        {"map": "maze", "episodes": 2, "maxSteps": 40, "max_steps": 50},
        format="json",
    )
    assert response.status_code == 400
    assert error_fields(response) == {
        "$.max_steps": ["max_steps is given twice (max_steps and maxSteps)"]
    }
    assert not EpisodeBatch.objects.exists()
