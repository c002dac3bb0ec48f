"""The queue pages' fills that read other apps: an agent's thoughts in a
time range, a saved search (and the search page's "Review these results"),
a gridworld batch's episodes and a pull request's keepalive decisions."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from reviews.models import ReviewItem, ReviewQueue
from search.services.indexer import index_pass
from search.services.saved import saved_search_create
from tests.reviews.review_pages_support import configs_make, queue_make, thoughts_make
from tests.reviews.subjects_support import decision_make, episode_make
from tests.search.search_support import thought_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def configs() -> list[Any]:
    return configs_make()


def _new_queue_post(configs: list[Any], **fields: Any) -> dict[str, Any]:
    return {
        "name": "Afternoon review",
        "configs": [str(configs[0].pk)],
        "assignment": "claim",
        "overlap_percent": "0",
        "members": "alice",
        **fields,
    }


def _field_block(text: str, field: str) -> str:
    return text.split(f'id="field-{field}"')[1].split('class="field"')[0]


def _refs(queue: ReviewQueue) -> list[str]:
    return sorted(ReviewItem.objects.filter(queue=queue).values_list("ref", flat=True))


def test_staff_fill_a_new_queue_with_an_agents_thoughts_in_a_range(
    agent: Any, owner: Any, configs: list[Any], staff_client: Client
) -> None:
    thoughts = thoughts_make(agent, 4)  # 12:00:00 .. 12:00:03 UTC

    answer = staff_client.post(
        "/reviews/queues/new",
        _new_queue_post(
            configs,
            fill="thoughts",
            agent="alpha",
            since="2026-02-03T12:00:01",
            until="2026-02-03T12:00:03",
            eligible="yes",
        ),
    )

    queue = ReviewQueue.objects.get()
    assert answer.status_code == 302
    assert _refs(queue) == sorted(str(t.pk) for t in thoughts[1:3])


@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        (
            {"agent": "nobody"},
            "agent",
            "there is no agent &#x27;nobody&#x27; you can see.",
        ),
        (
            {"agent": "alpha", "since": "2027-01-01T00:00"},
            "agent",
            "agent alpha has no thoughts in that range.",
        ),
        (
            {
                "agent": "alpha",
                "since": "2026-02-04T00:00",
                "until": "2026-02-03T00:00",
            },
            "until",
            "the end of the range must be after its start.",
        ),
    ],
)
def test_a_thought_fill_that_cannot_be_done_is_refused_on_its_field(
    agent: Any,
    owner: Any,
    configs: list[Any],
    staff_client: Client,
    fields: dict[str, str],
    field: str,
    reason: str,
) -> None:
    thoughts_make(agent, 2)

    page = staff_client.post(
        "/reviews/queues/new", _new_queue_post(configs, fill="thoughts", **fields)
    )

    assert page.status_code == 400
    assert f'data-field="{field}">{reason}</p>' in _field_block(page.text, field)
    assert not ReviewQueue.objects.exists()
    assert not ReviewItem.objects.exists()


def test_the_search_page_offers_staff_to_review_a_saved_searchs_results(
    staff: Any, owner: Any, staff_client: Client, owner_client: Client
) -> None:
    mine = saved_search_create(owner=staff, name="creepers", query="creeper", params={})
    saved_search_create(owner=owner, name="owner's", query="creeper", params={})

    page = staff_client.get("/search/")
    plain = owner_client.get("/search/")

    link = f'href="/reviews/queues/new?saved_search={mine.pk}"'
    assert link in page.text
    assert "Review these results" in page.text
    assert "Review these results" not in plain.text


def test_a_saved_search_link_prefills_the_new_queue_with_it(
    staff: Any, owner: Any, configs: list[Any], staff_client: Client
) -> None:
    mine = saved_search_create(owner=staff, name="creepers", query="creeper", params={})
    theirs = saved_search_create(owner=owner, name="theirs", query="oak", params={})

    page = staff_client.get(f"/reviews/queues/new?saved_search={mine.pk}")
    other = staff_client.get(f"/reviews/queues/new?saved_search={theirs.pk}")

    assert page.status_code == 200
    assert 'value="search" required id="id_fill_4" checked' in page.text
    assert f'<option value="{mine.pk}" selected>creepers</option>' in page.text
    assert 'value="Review the results of creepers"' in page.text
    # Someone else's saved search is neither chosen nor offered.
    assert "theirs" not in other.text
    assert 'value="search" required id="id_fill_4" checked' not in other.text


def test_staff_fill_a_new_queue_from_their_saved_search(
    agent: Any, staff: Any, owner: Any, configs: list[Any], staff_client: Client
) -> None:
    found = [thought_make(agent, f"creeper number {n}", minutes=n) for n in (1, 2)]
    thought_make(agent, "an oak log", minutes=3)
    index_pass()
    mine = saved_search_create(owner=staff, name="creepers", query="creeper", params={})

    answer = staff_client.post(
        "/reviews/queues/new",
        _new_queue_post(configs, fill="search", saved_search=str(mine.pk)),
    )

    assert answer.status_code == 302
    assert _refs(ReviewQueue.objects.get()) == sorted(str(t.pk) for t in found)


def test_a_saved_search_not_chosen_is_refused_on_its_field(
    owner: Any, configs: list[Any], staff_client: Client
) -> None:
    page = staff_client.post(
        "/reviews/queues/new", _new_queue_post(configs, fill="search")
    )

    assert page.status_code == 400
    block = _field_block(page.text, "saved_search")
    assert 'data-field="saved_search">pick one of your saved searches.</p>' in block
    assert not ReviewQueue.objects.exists()


def test_the_queue_page_adds_a_batchs_episodes_and_a_pulls_decisions(
    owner: Any, configs: list[Any], staff_client: Client
) -> None:
    queue = queue_make(members=[owner], thoughts=[], configs=configs)
    episode = episode_make()
    decision = decision_make()

    episodes = staff_client.post(
        f"/reviews/queues/{queue.pk}/fill",
        {"more-fill": "episodes", "more-batch": str(episode.batch_id)},
    )
    decisions = staff_client.post(
        f"/reviews/queues/{queue.pk}/fill",
        {"more-fill": "decisions", "more-pull": "acme/widgets#7"},
    )

    assert episodes.status_code == 302 and decisions.status_code == 302
    kinds = sorted(
        ReviewItem.objects.filter(queue=queue).values_list("kind", flat=True)
    )
    assert kinds == ["episode", "episode", "keepalive_decision"]
    assert ReviewItem.objects.filter(ref=str(decision.pk)).exists()


def test_an_unknown_pull_is_refused_on_the_queue_page_and_nothing_added(
    owner: Any, configs: list[Any], staff_client: Client
) -> None:
    queue = queue_make(members=[owner], thoughts=[], configs=configs)

    page = staff_client.post(
        f"/reviews/queues/{queue.pk}/fill",
        {"more-fill": "decisions", "more-pull": "acme/widgets#8"},
    )

    assert page.status_code == 400
    reason = "there is no pull request acme/widgets#8."
    assert f'data-field="pull">{reason}</p>' in _field_block(page.text, "pull")
    assert not ReviewItem.objects.filter(queue=queue).exists()


def test_the_queue_page_adds_every_decision_of_a_time_range(
    owner: Any, configs: list[Any], staff_client: Client
) -> None:
    queue = queue_make(members=[owner], thoughts=[], configs=configs)
    decision = decision_make()

    answer = staff_client.post(
        f"/reviews/queues/{queue.pk}/fill",
        {"more-fill": "decisions", "more-since": "2000-01-01T00:00"},
    )
    refused = staff_client.post(
        f"/reviews/queues/{queue.pk}/fill", {"more-fill": "decisions"}
    )

    assert answer.status_code == 302
    assert _refs(queue) == [str(decision.pk)]
    assert refused.status_code == 400
    reason = "name a pull request or a time range."
    assert f'data-field="pull">{reason}</p>' in _field_block(refused.text, "pull")
