"""A thought's own page: its text, what the pipeline decided, the tasks
planning made from it; visible to the agent's owner and members only."""

from __future__ import annotations

from typing import Any

import pytest

from stream.models import Thought
from stream.services.planning import planning_poll_once
from tests.builders import agent_make

pytestmark = pytest.mark.django_db


def published(publish: Any, content: str) -> Thought:
    response = publish(content)
    assert response.status_code == 201, response.content
    return Thought.objects.get(pk=response.json()["id"])


@pytest.fixture
def grounded(perceive: Any, publish: Any, calm_facts: Any) -> Thought:
    assert perceive(calm_facts).status_code in (200, 201)
    return published(publish, "Oak trees all around. [GOAL: collect oak_log 2]")


@pytest.mark.parametrize("who", ["owner_client", "member_client"])
def test_thought_page_shows_the_text_and_the_pipelines_decisions(
    request: pytest.FixtureRequest, who: str, grounded: Thought
) -> None:
    html = (
        request.getfixturevalue(who)
        .get(f"/stream/alpha/thoughts/{grounded.pk}/")
        .content.decode()
    )

    assert f"<h1>Thought {grounded.pk}</h1>" in html
    assert f"<td>{grounded.content}</td>" in html
    assert "Oak trees all around." in grounded.content
    assert '<th scope="row">Goal</th><td>collect oak_log 2' in html
    assert f"<code>{grounded.goal_key}</code>" in html
    assert '<span class="pass">pass</span>' in html
    assert "None yet: it waits in the actionable queue for planning." in html
    assert "&quot;rawContentSha256&quot;" in html


def test_thought_page_lists_the_task_planning_made_from_it(
    owner_client: Any, agent: Any, grounded: Thought
) -> None:
    (task_id,) = planning_poll_once(agent=agent).task_ids

    html = owner_client.get(f"/stream/alpha/thoughts/{grounded.pk}/").content.decode()

    assert f'href="/stream/alpha/tasks/{task_id}/">Task {task_id}: ' in html
    assert "yes, by planner" in html


def test_a_thought_without_a_goal_says_why(owner_client: Any, publish: Any) -> None:
    thought = published(publish, "Two cows graze at the forest edge.")

    html = owner_client.get(f"/stream/alpha/thoughts/{thought.pk}/").content.decode()

    assert '<th scope="row">Goal</th><td>none' in html
    assert '<th scope="row">Goal key</th><td>none</td>' in html
    assert '<p class="muted">None.</p>' in html


def test_stream_and_task_pages_link_the_thought(
    owner_client: Any, agent: Any, grounded: Thought
) -> None:
    (task_id,) = planning_poll_once(agent=agent).task_ids
    link = f'<a href="/stream/alpha/thoughts/{grounded.pk}/">{grounded.pk}</a>'

    assert link in owner_client.get("/stream/alpha/").content.decode()
    assert link in owner_client.get(f"/stream/alpha/tasks/{task_id}/").content.decode()


def test_an_eval_run_id_links_its_run_page_when_it_can_be_one(
    owner_client: Any, grounded: Thought
) -> None:
    url = f"/stream/alpha/thoughts/{grounded.pk}/"
    Thought.objects.filter(pk=grounded.pk).update(eval_run_id="20260101-abc")
    linked = owner_client.get(url).content.decode()
    Thought.objects.filter(pk=grounded.pk).update(eval_run_id="a/b")
    unlinkable = owner_client.get(url)

    assert '<a href="/evals/runs/20260101-abc/"><code>20260101-abc</code></a>' in linked
    assert unlinkable.status_code == 200
    assert "<td><code>a/b</code></td>" in unlinkable.content.decode()


def test_strangers_unknown_ids_and_other_agents_thoughts_are_404(
    stranger_client: Any, owner_client: Any, client: Any, owner: Any, grounded: Thought
) -> None:
    other = agent_make(name="beta", owner=owner).agent
    url = f"/stream/alpha/thoughts/{grounded.pk}/"

    assert stranger_client.get(url).status_code == 404
    assert owner_client.get("/stream/alpha/thoughts/999999/").status_code == 404
    assert (
        owner_client.get(f"/stream/{other.name}/thoughts/{grounded.pk}/").status_code
        == 404
    )
    anonymous = client.get(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")


def test_a_thought_pruned_by_retention_says_so_with_a_way_back(
    owner_client: Any, publish: Any, agent: Any, settings: Any
) -> None:
    from stream.services.retention import stream_prune

    old = published(publish, "An old thought about the weather.")
    kept = published(publish, "A newer thought about the weather.")
    settings.STREAM_QUEUE_HARD_CAP = 1
    assert stream_prune(agent=agent) == 1

    response = owner_client.get(f"/stream/alpha/thoughts/{old.pk}/")

    html = response.content.decode()
    assert response.status_code == 404
    assert f"<h1>Thought {old.pk} is no longer kept</h1>" in html
    assert "This thought was removed by the stream's retention" in html
    assert (
        "The stream keeps processed thoughts for 1 day, actionable ones waiting "
        "for planning for 30 minutes, all others for 10 minutes, and at most 1 "
        "per agent (the oldest go first)."
    ) in html
    assert '<a href="/stream/alpha/">Back to alpha\'s stream</a>' in html
    assert owner_client.get(f"/stream/alpha/thoughts/{kept.pk}/").status_code == 200


def test_an_id_never_handed_out_stays_a_plain_404(
    owner_client: Any, publish: Any
) -> None:
    newest = published(publish, "The only thought.")

    for pk in (newest.pk + 1, 999999):
        response = owner_client.get(f"/stream/alpha/thoughts/{pk}/")
        assert response.status_code == 404
        assert "no longer kept" not in response.content.decode()
