"""Executor REST API: /api/tasks, claim, progress, complete, fail."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from stream.core.planning import OriginKind, TaskOrigin
from stream.models import Task
from stream.services.planning_task_store import task_add
from tests.api_errors import error_fields
from tests.builders import agent_make

pytestmark = pytest.mark.django_db


def add(agent: Any, key: str = "collect:oak_log") -> Task:
    action, _, target = key.partition(":")
    return task_add(
        agent=agent,
        title=f"{action} {target}",
        action=action,
        target=target,
        metadata={"goalKey": key},
        origin=TaskOrigin(OriginKind.API, "test"),
    )


def post(client: APIClient, url: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(url, body or {}, format="json")


def test_claim_returns_the_oldest_pending_task_then_null(
    agent_client: APIClient, agent: Any
) -> None:
    first = add(agent, "collect:oak_log")
    add(agent, "mine:stone")

    one = post(agent_client, "/api/tasks/claim")
    two = post(agent_client, "/api/tasks/claim", {"executor": "bot-2"})
    three = post(agent_client, "/api/tasks/claim")

    assert one.status_code == 200
    task = one.data["task"]
    assert (task["id"], task["status"], task["claimedBy"]) == (
        first.pk,
        "active",
        "alpha",
    )
    assert task["goalKey"] == "collect:oak_log"
    assert task["metadata"]["goalKey"] == "collect:oak_log"
    assert task["origin"] == {"kind": "api", "name": "test", "parentTaskId": None}
    assert two.data["task"]["claimedBy"] == "bot-2"
    assert three.status_code == 200
    assert three.data == {"task": None}


def test_claiming_a_claimed_task_is_409_with_the_current_state(
    agent_client: APIClient, agent: Any
) -> None:
    task = add(agent)
    post(agent_client, "/api/tasks/claim", {"taskId": task.pk})

    again = post(agent_client, "/api/tasks/claim", {"taskId": task.pk})

    assert again.status_code == 409
    error = again.json()["error"]
    assert error["code"] == "conflict"
    assert error["reason"] == "illegal_transition:active->claim"
    assert error["current"]["id"] == task.pk
    assert error["current"]["status"] == "active"


def test_progress_complete_flow(agent_client: APIClient, agent: Any) -> None:
    task = add(agent)
    post(agent_client, "/api/tasks/claim", {"taskId": task.pk})

    moved = post(agent_client, f"/api/tasks/{task.pk}/progress", {"progress": 0.4})
    blocked = post(
        agent_client,
        f"/api/tasks/{task.pk}/progress",
        {"progress": 0.4, "blockedReason": "no_path"},
    )
    done = post(agent_client, f"/api/tasks/{task.pk}/complete", {"result": {"n": 8}})
    again = post(agent_client, f"/api/tasks/{task.pk}/complete")

    assert moved.status_code == 200
    assert moved.data["progress"] == 0.4
    assert blocked.data["blockedReason"] == "no_path"
    assert blocked.data["blockedAt"] is not None
    assert blocked.data["stallClass"] == "blocked_reason"
    assert done.status_code == 200
    assert (done.data["status"], done.data["progress"]) == ("completed", 1.0)
    assert done.data["metadata"]["result"] == {"n": 8}
    assert done.data["stallClass"] is None
    assert again.status_code == 409
    assert again.json()["error"]["current"]["status"] == "completed"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"progress": 1.5}, "progress"),
        ({}, "progress"),
        ({"progress": "x"}, "progress"),
    ],
)
def test_bad_progress_is_400_with_the_field_and_changes_nothing(
    agent_client: APIClient, agent: Any, body: dict[str, Any], field: str
) -> None:
    task = add(agent)
    post(agent_client, "/api/tasks/claim", {"taskId": task.pk})
    response = post(agent_client, f"/api/tasks/{task.pk}/progress", body)
    assert response.status_code == 400
    assert f"$.{field}" in error_fields(response)
    assert Task.objects.get(pk=task.pk).progress == 0.0


def test_progress_backwards_is_409(agent_client: APIClient, agent: Any) -> None:
    task = add(agent)
    post(agent_client, "/api/tasks/claim", {"taskId": task.pk})
    post(agent_client, f"/api/tasks/{task.pk}/progress", {"progress": 0.5})
    response = post(agent_client, f"/api/tasks/{task.pk}/progress", {"progress": 0.2})
    assert response.status_code == 409
    assert response.json()["error"]["reason"] == "progress_regressed"
    assert Task.objects.get(pk=task.pk).progress == 0.5


def test_fail_needs_a_reason(agent_client: APIClient, agent: Any) -> None:
    task = add(agent)
    missing = post(agent_client, f"/api/tasks/{task.pk}/fail")
    failed = post(agent_client, f"/api/tasks/{task.pk}/fail", {"reason": "no trees"})
    assert missing.status_code == 400
    assert "$.reason" in error_fields(missing)
    assert (
        failed.status_code,
        failed.data["status"],
        failed.data["failureReason"],
    ) == (
        200,
        "failed",
        "no trees",
    )


def test_unknown_or_foreign_task_is_404(
    agent_client: APIClient, agent: Any, owner: Any
) -> None:
    foreign = add(agent_make(name="beta", owner=owner).agent)
    for url in (
        f"/api/tasks/{foreign.pk}/complete",
        f"/api/tasks/{foreign.pk + 1000}/progress",
    ):
        response = post(agent_client, url, {"progress": 0.5})
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    claim = post(agent_client, "/api/tasks/claim", {"taskId": foreign.pk})
    assert claim.status_code == 404
    assert agent_client.get(f"/api/tasks/{foreign.pk}").status_code == 404
    assert Task.objects.get(pk=foreign.pk).status == "pending"


def test_list_filters_by_status_and_shows_stall_classes(
    agent_client: APIClient, agent: Any
) -> None:
    pending = add(agent, "collect:oak_log")
    active = add(agent, "mine:stone")
    post(agent_client, "/api/tasks/claim", {"taskId": active.pk})

    everything = agent_client.get("/api/tasks")
    only_pending = agent_client.get("/api/tasks?status=pending")
    detail = agent_client.get(f"/api/tasks/{pending.pk}")

    assert everything.status_code == 200
    assert [t["id"] for t in everything.data["tasks"]] == [active.pk, pending.pk]
    assert everything.data["count"] == 2
    assert [t["id"] for t in only_pending.data["tasks"]] == [pending.pk]
    # The claim call just made the executor visible; nothing is stuck yet.
    assert detail.data["stallClass"] is None


def test_list_rejects_an_unknown_status(agent_client: APIClient) -> None:
    response = agent_client.get("/api/tasks?status=done")
    assert response.status_code == 400
    assert error_fields(response) == {
        "?status": ["status must be one of pending, active, completed, failed."]
    }


def test_never_claimed_tasks_show_executor_unavailable(
    agent_client: APIClient, agent: Any
) -> None:
    add(agent)
    response = agent_client.get("/api/tasks")
    assert response.data["tasks"][0]["stallClass"] == "executor_unavailable"


@pytest.mark.parametrize("who", ["anon_client", "owner_client"])
def test_task_api_needs_an_agent_key(
    request: pytest.FixtureRequest, who: str, agent: Any
) -> None:
    task = add(agent)
    client = request.getfixturevalue(who)
    assert client.get("/api/tasks").status_code in (401, 403)
    response = client.post("/api/tasks/claim", {}, content_type="application/json")
    assert response.status_code in (401, 403)
    assert Task.objects.get(pk=task.pk).status == "pending"
