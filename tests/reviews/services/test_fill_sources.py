"""The fills that read other apps: an agent's thoughts in a time range, a
saved search, a gridworld batch's episodes, a pull request's keepalive
decisions. Each refusal names its field and stores nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from core.errors import SchemaInvalid
from reviews.models import ReviewItem
from reviews.services import fill_sources
from reviews.services.fill_sources import (
    queue_fill_decisions,
    queue_fill_episodes,
    queue_fill_search,
    queue_fill_thoughts,
)
from search.services.saved import saved_search_create
from tests.builders import T0, thought_actionable
from tests.reviews.review_pages_support import (
    configs_make,
    queue_make,
    thoughts_make,
)
from tests.reviews.subjects_support import decision_make, episode_make
from tests.search.search_support import two_owners

pytestmark = pytest.mark.django_db


_CONFIGS: dict[str, list[Any]] = {}


@pytest.fixture(autouse=True)
def _configs_fresh() -> None:
    _CONFIGS.clear()


def _queue(owner: Any, name: str = "Fill") -> Any:
    if "made" not in _CONFIGS:
        _CONFIGS["made"] = configs_make()
    return queue_make(members=[owner], thoughts=[], name=name, configs=_CONFIGS["made"])


def _refs(queue: Any) -> list[tuple[str, str]]:
    return sorted(
        ReviewItem.objects.filter(queue=queue).values_list("kind", "ref"),
        key=lambda pair: (pair[0], int(pair[1])),
    )


def _refused(call: Any) -> set[str]:
    with pytest.raises(SchemaInvalid) as caught:
        call()
    return {problem.path for problem in caught.value.problems}


def test_thoughts_in_the_range_are_added(owner: Any, agent: Any) -> None:
    thoughts = thoughts_make(agent, 5)  # T0 + 0..4 s
    queue = _queue(owner)

    result = queue_fill_thoughts(
        queue,
        agent="alpha",
        since=T0 + timedelta(seconds=1),
        until=T0 + timedelta(seconds=4),
        user=owner,
    )

    assert (result.added, result.already) == (3, 0)
    assert _refs(queue) == [("thought", str(t.pk)) for t in thoughts[1:4]]
    assert set(
        ReviewItem.objects.filter(queue=queue).values_list("origin", flat=True)
    ) == {"rule"}


def test_the_eligibility_filter_keeps_eligible_or_the_others(
    owner: Any, agent: Any
) -> None:
    eligible = thought_actionable(agent, created_at=T0)
    other = thought_actionable(
        agent, created_at=T0 + timedelta(seconds=1), convert_eligible=False
    )
    yes, no = _queue(owner, "yes"), _queue(owner, "no")

    queue_fill_thoughts(yes, agent="alpha", eligible="yes", user=owner)
    queue_fill_thoughts(no, agent="alpha", eligible="no", user=owner)

    assert _refs(yes) == [("thought", str(eligible.pk))]
    assert _refs(no) == [("thought", str(other.pk))]


def test_over_the_maximum_the_same_sample_of_thoughts_is_added(
    owner: Any, agent: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(fill_sources, "MAX_ITEMS", 3)
    thoughts = thoughts_make(agent, 8)
    first, second = _queue(owner, "one"), _queue(owner, "two")

    assert queue_fill_thoughts(first, agent="alpha", user=owner).added == 3
    queue_fill_thoughts(second, agent="alpha", user=owner)

    assert _refs(first) == _refs(second)
    assert {ref for _, ref in _refs(first)} <= {str(t.pk) for t in thoughts}


def test_an_agent_the_person_may_not_see_is_refused_naming_agent(
    owner: Any, agent: Any, stranger: Any
) -> None:
    thoughts_make(agent, 2)
    queue = _queue(owner)

    assert _refused(
        lambda: queue_fill_thoughts(queue, agent="alpha", user=stranger)
    ) == {"agent"}
    assert _refused(lambda: queue_fill_thoughts(queue, agent="nobody", user=owner)) == {
        "agent"
    }
    assert not ReviewItem.objects.filter(queue=queue).exists()


def test_staff_may_fill_from_any_agent(staff: Any, owner: Any, agent: Any) -> None:
    thoughts_make(agent, 2)
    assert queue_fill_thoughts(_queue(owner), agent="alpha", user=staff).added == 2


@pytest.mark.parametrize(
    ("since", "until", "eligible", "field"),
    [
        (T0 + timedelta(days=1), None, "", "thoughts"),
        (T0, T0, "", "until"),
        (None, None, "sometimes", "eligible"),
    ],
)
def test_a_thought_fill_that_matches_nothing_or_is_malformed_is_refused(
    owner: Any, agent: Any, since: Any, until: Any, eligible: str, field: str
) -> None:
    thoughts_make(agent, 2)
    queue = _queue(owner)

    assert _refused(
        lambda: queue_fill_thoughts(
            queue,
            agent="alpha",
            since=since,
            until=until,
            eligible=eligible,
            user=owner,
        )
    ) == {field}
    assert not ReviewItem.objects.filter(queue=queue).exists()


def test_a_saved_search_adds_what_it_finds_among_what_the_user_may_read(
    owner: Any, agent: Any, stranger: Any
) -> None:
    world = two_owners(agent, stranger)
    saved = saved_search_create(owner=owner, name="c", query="creeper", params={})
    queue = _queue(owner)

    result = queue_fill_search(queue, saved_search_id=str(saved.pk), user=owner)

    assert result.added == 2
    assert _refs(queue) == [
        ("thought", str(world["alpha_1"].pk)),
        ("thought", str(world["alpha_2"].pk)),
    ]
    assert set(
        ReviewItem.objects.filter(queue=queue).values_list("origin", flat=True)
    ) == {"search"}


def test_a_saved_search_of_someone_else_or_finding_nothing_is_refused(
    owner: Any, agent: Any, stranger: Any
) -> None:
    two_owners(agent, stranger)
    theirs = saved_search_create(owner=stranger, name="c", query="creeper", params={})
    empty = saved_search_create(owner=owner, name="e", query="enderman", params={})
    queue = _queue(owner)

    assert _refused(
        lambda: queue_fill_search(queue, saved_search_id=theirs.pk, user=owner)
    ) == {"search"}
    assert _refused(
        lambda: queue_fill_search(queue, saved_search_id=empty.pk, user=owner)
    ) == {"search"}
    assert _refused(
        lambda: queue_fill_search(queue, saved_search_id="x", user=owner)
    ) == {"search"}
    assert not ReviewItem.objects.filter(queue=queue).exists()


def test_all_or_a_share_of_a_batchs_episodes_are_added(owner: Any) -> None:
    episode = episode_make()  # the first of a batch of 2
    every, half = _queue(owner, "all"), _queue(owner, "half")

    assert queue_fill_episodes(every, batch_id=episode.batch_id).added == 2
    assert (
        queue_fill_episodes(half, batch_id=str(episode.batch_id), percent=50).added == 1
    )
    assert {kind for kind, _ in _refs(every)} == {"episode"}
    assert str(episode.pk) in {ref for _, ref in _refs(every)}


@pytest.mark.parametrize(
    ("batch", "percent", "field"),
    [("999999", 100, "batch"), ("batch", 100, "batch"), (None, 0, "percent")],
)
def test_an_unknown_batch_or_a_bad_share_is_refused(
    owner: Any, batch: Any, percent: Any, field: str
) -> None:
    episode = episode_make()
    queue = _queue(owner)

    assert _refused(
        lambda: queue_fill_episodes(
            queue, batch_id=batch or episode.batch_id, percent=percent
        )
    ) == {field}
    assert not ReviewItem.objects.filter(queue=queue).exists()


def test_a_pull_requests_decisions_are_added(owner: Any) -> None:
    decision = decision_make()
    queue = _queue(owner)

    result = queue_fill_decisions(queue, pull="acme/widgets#7")

    assert result.added == 1
    assert _refs(queue) == [("keepalive_decision", str(decision.pk))]


@pytest.mark.parametrize(
    ("pull", "after", "field"),
    [
        ("acme/widgets#8", False, "pull"),
        ("acme/widgets", False, "pull"),
        ("acme/widgets#7", True, "pull"),
    ],
)
def test_an_unknown_pull_or_none_of_its_decisions_in_range_is_refused(
    owner: Any, pull: str, after: bool, field: str
) -> None:
    decision = decision_make()
    queue = _queue(owner)
    since = decision.created_at + timedelta(seconds=1) if after else None

    assert _refused(lambda: queue_fill_decisions(queue, pull=pull, since=since)) == {
        field
    }
    assert not ReviewItem.objects.filter(queue=queue).exists()


def test_every_decision_of_a_time_range_is_added_without_a_pull(owner: Any) -> None:
    decision = decision_make()
    queue = _queue(owner)

    result = queue_fill_decisions(
        queue, since=decision.created_at - timedelta(minutes=1)
    )

    assert result.added == 1
    assert _refs(queue) == [("keepalive_decision", str(decision.pk))]


def test_no_pull_and_no_range_or_an_empty_range_is_refused_naming_pull(
    owner: Any,
) -> None:
    decision = decision_make()
    queue = _queue(owner)

    assert _refused(lambda: queue_fill_decisions(queue, pull="")) == {"pull"}
    assert _refused(
        lambda: queue_fill_decisions(
            queue, since=decision.created_at + timedelta(seconds=1)
        )
    ) == {"pull"}
    assert not ReviewItem.objects.filter(queue=queue).exists()
