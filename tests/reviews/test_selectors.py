"""Who sees which queue and which scores."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.services import api_key_create
from core.errors import NotFound
from core.scopes import REVIEWS
from reviews.models import Score
from reviews.selectors import (
    queue_get,
    queue_members,
    queues_visible,
    scores_visible,
    subject_allowed,
)
from tests.builders import agent_make
from tests.reviews.reviews_support import configs_make, queue_make

pytestmark = pytest.mark.django_db


def test_reviewers_see_only_their_queues_and_staff_see_all(
    owner: Any, member: Any, stranger: Any, staff: Any
) -> None:
    configs = configs_make()
    ours = queue_make([configs["quality"]], [owner, member], name="ours")
    other = queue_make([configs["quality"]], [stranger], name="theirs")
    assert list(queues_visible(user=owner)) == [ours]
    assert set(queues_visible(user=staff)) == {ours, other}
    assert queue_get(user=member, pk=ours.pk) == ours
    with pytest.raises(NotFound):
        queue_get(user=owner, pk=other.pk)
    with pytest.raises(NotFound):
        queue_get(user=owner, pk=0)
    assert queue_members(ours) == [owner, member]


def test_an_anonymous_user_sees_no_queue_and_no_score() -> None:
    from django.contrib.auth.models import AnonymousUser

    assert not queues_visible(user=AnonymousUser()).exists()
    assert not scores_visible(user=AnonymousUser()).exists()
    assert subject_allowed(agent_id=None, user=AnonymousUser()) is False


def _score(config: Any, giver: Any, agent_id: int | None, ref: str) -> Score:
    return Score.objects.create(
        config=config,
        kind="thought",
        ref=ref,
        agent_id=agent_id,
        value_number=1.0,
        value_label="true",
        source="api",
        author=giver,
    )


def test_scores_follow_the_subjects_agent(
    owner: Any, member: Any, stranger: Any, staff: Any
) -> None:
    config = configs_make()["grounded"]
    mine = agent_make(name="mine", owner=owner, scopes=[REVIEWS])
    mine.agent.members.add(member)
    theirs = agent_make(name="theirs", owner=stranger, scopes=[REVIEWS])
    own = _score(config, owner, mine.agent.pk, "1")
    foreign = _score(config, stranger, theirs.agent.pk, "2")
    open_one = _score(config, stranger, None, "3")
    assert set(scores_visible(user=member)) == {own, open_one}
    assert set(scores_visible(user=stranger)) == {foreign, open_one}
    assert set(scores_visible(user=staff)) == {own, foreign, open_one}
    key = mine.agent.api_key
    assert list(scores_visible(key=key, auth=mine.agent)) == [own]
    judge = api_key_create(name="judge", owner=owner, scopes=[REVIEWS]).api_key
    assert list(scores_visible(key=judge, auth=judge)) == [open_one]


def test_subject_allowed_for_people_and_keys(
    owner: Any, stranger: Any, staff: Any
) -> None:
    mine = agent_make(name="mine", owner=owner, scopes=[REVIEWS]).agent
    theirs = agent_make(name="theirs", owner=stranger, scopes=[REVIEWS]).agent
    assert subject_allowed(agent_id=mine.pk, user=owner)
    assert not subject_allowed(agent_id=theirs.pk, user=owner)
    assert subject_allowed(agent_id=theirs.pk, user=staff)
    assert subject_allowed(agent_id=None, user=owner)
    assert subject_allowed(agent_id=mine.pk, key=mine.api_key, auth=mine)
    assert not subject_allowed(agent_id=None, key=mine.api_key, auth=mine)
    # A key never borrows its owner's sight: staff's agent key is still its agent's.
    staffs = agent_make(name="staffs", owner=staff, scopes=[REVIEWS]).agent
    assert not subject_allowed(
        agent_id=theirs.pk, user=staff, key=staffs.api_key, auth=staffs
    )
