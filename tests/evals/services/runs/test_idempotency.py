"""``Idempotency-Key`` on the run-starting POSTs: a retry returns the first
run, never a second one; concurrent retries make one run (unique per key
holder, on PostgreSQL's real locks)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.models import Run, RunIdempotencyKey
from tests.concurrency import run_together

SHIPPED = Path(__file__).resolve().parents[4] / "evals" / "suites"
RUN = {
    "suite": "smoke",
    "profile": "balanced",
    "mode": "thought_only",
    "model": "scripted",
}
BATCH = {"map": "maze", "episodes": 2, "seed": 7, "lane_size": 2}


@pytest.fixture(autouse=True)
def suites(settings: Any, tmp_path: Path) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    shutil.copytree(SHIPPED, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"


def start(client: APIClient, key: str | None, body: dict[str, Any] = RUN) -> Any:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post("/api/evals/runs", body, format="json", **headers)


@pytest.mark.django_db
def test_a_retry_with_the_same_key_returns_the_first_run(
    agent_client: APIClient,
) -> None:
    first = start(agent_client, "retry-1")
    again = start(agent_client, "retry-1")

    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["runId"] == first.json()["runId"]
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Run.objects.count() == 1


@pytest.mark.django_db
def test_without_a_key_every_post_starts_a_run(agent_client: APIClient) -> None:
    start(agent_client, None)
    start(agent_client, None)

    assert Run.objects.count() == 2


@pytest.mark.django_db
def test_the_same_key_with_another_body_is_refused(agent_client: APIClient) -> None:
    start(agent_client, "k")
    other = start(agent_client, "k", {**RUN, "seed": 99})

    assert other.status_code == 409
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    assert Run.objects.count() == 1


@pytest.mark.django_db
def test_keys_belong_to_their_holder(
    agent_client: APIClient, owner_client: Any
) -> None:
    by_key = start(agent_client, "shared")
    by_session = owner_client.post(
        "/api/evals/runs",
        RUN,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="shared",
    )

    assert by_key.json()["runId"] != by_session.json()["runId"]
    assert sorted(RunIdempotencyKey.objects.values_list("holder", flat=True)) == [
        f"key:{agent_client_prefix(by_key)}",
        f"user:{Run.objects.get(run_id=by_session.json()['runId']).created_by_id}",
    ]


def agent_client_prefix(response: Any) -> str:
    return RunIdempotencyKey.objects.get(
        run__run_id=response.json()["runId"]
    ).holder.removeprefix("key:")


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", " ", "x" * 256, "bad\u00e9", "tab\tkey"])
def test_a_malformed_key_is_a_400_naming_the_header(
    agent_client: APIClient, key: str
) -> None:
    response = start(agent_client, key)

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == [
        {
            "path": "header:Idempotency-Key",
            "message": "Idempotency-Key must be 1 to 255 printable ASCII characters",
        }
    ]
    assert Run.objects.count() == 0


@pytest.mark.django_db
def test_a_gridworld_batch_retry_returns_the_first_batch(
    agent_client: APIClient,
) -> None:
    first = agent_client.post(
        "/api/gridworld/batches", BATCH, format="json", HTTP_IDEMPOTENCY_KEY="b-1"
    )
    again = agent_client.post(
        "/api/gridworld/batches", BATCH, format="json", HTTP_IDEMPOTENCY_KEY="b-1"
    )

    assert (first.status_code, again.status_code) == (202, 202), first.content
    assert again.json()["id"] == first.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert Run.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_with_one_key_make_one_run(
    api_key: str, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True

    def post() -> tuple[int, str]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key}")
        response = start(client, "together")
        return response.status_code, response.json()["runId"]

    answers = run_together(*[post for _ in range(4)])

    assert all(not isinstance(a, Exception) for a in answers), answers
    assert {status for status, _ in answers} == {202}
    assert len({run_id for _, run_id in answers}) == 1
    assert Run.objects.count() == 1
