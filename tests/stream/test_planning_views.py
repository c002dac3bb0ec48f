"""Task pages: per-agent list and detail, visible to owner and members only."""

from __future__ import annotations

from typing import Any

import pytest

from stream.core.planning import OriginKind, TaskOrigin
from stream.models import Thought
from stream.services.planning import planning_poll_once
from stream.services.planning_task_store import task_add

pytestmark = pytest.mark.django_db


@pytest.fixture
def converted(agent: Any) -> Any:
    """A task converted from a thought by a real poll."""
    from django.utils import timezone

    Thought.objects.create(
        agent=agent,
        type="reflection",
        content="Logs nearby. [GOAL: collect oak_log 4]",
        content_hash="a" * 16,
        convert_eligible=True,
        eligibility_reason="eligible",
        grounding_passed=True,
        goal_key="collect:oak_log",
        source="agent",
        metadata={"extractedGoal": {"action": "collect", "target": "oak_log"}},
        created_at=timezone.now(),
    )
    result = planning_poll_once(agent=agent)
    return agent.tasks.get(pk=result.task_ids[0])


@pytest.mark.parametrize("who", ["owner_client", "member_client"])
def test_task_list_shows_status_origin_goal_key_stall_and_thought_link(
    request: pytest.FixtureRequest, who: str, converted: Any
) -> None:
    client = request.getfixturevalue(who)
    response = client.get("/stream/alpha/tasks/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "collect oak_log" in html
    assert "<code>collect:oak_log</code>" in html
    assert "cognition/thought-to-task" in html
    assert "executor_unavailable" in html
    assert f'href="/stream/alpha/tasks/{converted.pk}/#thought"' in html


def test_task_detail_shows_the_source_thought_and_history(
    owner_client: Any, converted: Any
) -> None:
    response = owner_client.get(f"/stream/alpha/tasks/{converted.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="thought"' in html
    assert "Logs nearby." in html
    assert "yes, by planner" in html
    assert "<td>created</td>" in html


def test_task_detail_after_the_thought_was_pruned(
    owner_client: Any, converted: Any
) -> None:
    thought_id = converted.thought_id
    Thought.objects.filter(pk=thought_id).delete()
    response = owner_client.get(f"/stream/alpha/tasks/{converted.pk}/")
    assert response.status_code == 200
    assert f"Thought {thought_id} has been pruned" in response.content.decode()


def test_status_filter(owner_client: Any, agent: Any) -> None:
    task_add(
        agent=agent,
        title="dig a hole",
        action="mine",
        origin=TaskOrigin(OriginKind.API, "t"),
    )
    pending = owner_client.get("/stream/alpha/tasks/?status=pending")
    completed = owner_client.get("/stream/alpha/tasks/?status=completed")
    assert "dig a hole" in pending.content.decode()
    assert "dig a hole" not in completed.content.decode()
    assert "No tasks with status completed" in completed.content.decode()


def test_stranger_gets_404_and_anonymous_a_login_redirect(
    stranger_client: Any, client: Any, converted: Any
) -> None:
    for url in ("/stream/alpha/tasks/", f"/stream/alpha/tasks/{converted.pk}/"):
        assert stranger_client.get(url).status_code == 404
    client.logout()
    anonymous = client.get("/stream/alpha/tasks/")
    assert anonymous.status_code == 302
    assert "/accounts/login/" in anonymous["Location"]


def test_unknown_task_is_404(owner_client: Any, agent: Any) -> None:
    assert owner_client.get("/stream/alpha/tasks/999999/").status_code == 404
