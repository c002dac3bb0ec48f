"""Who reads which documents, and the score filter."""

from __future__ import annotations

from typing import Any

import pytest

from search.core.filters import parse_filters
from search.core.query import parse
from search.selectors import documents_visible, filtered, matching
from search.services.indexer import index_pass
from tests.search.search_support import thought_make

pytestmark = pytest.mark.django_db


def _refs(user: Any, q: str, **params: str) -> set[str]:
    docs = filtered(documents_visible(user=user), parse_filters(params))
    return set(matching(docs, parse(q)).values_list("ref", flat=True))


@pytest.fixture
def comments(owner: Any, member: Any, stranger: Any, agent: Any) -> dict[str, Any]:
    """A queue with member bob; a finished assignment comment in it, and a
    score comment outside any queue on alpha's thought."""
    from django.utils import timezone

    from reviews.models import ReviewAssignment, ReviewItem, Score
    from reviews.services.configs import config_create
    from tests.reviews.reviews_support import queue_make

    thought = thought_make(agent, "plain thought")
    config = config_create(name="quality", kind="numeric", min_value=1, max_value=5)
    queue = queue_make([config], [member])
    item = ReviewItem.objects.create(
        queue=queue, kind="thought", ref=str(thought.pk), agent_id=agent.pk
    )
    ReviewAssignment.objects.create(
        item=item, reviewer=member, comment="queue creeper note",
        status="done", finished_at=timezone.now(),
    )  # fmt: skip
    Score.objects.create(
        config=config, kind="thought", ref=str(thought.pk), agent_id=agent.pk,
        value_number=4, comment="loose creeper note", source="review", author=owner,
    )  # fmt: skip
    index_pass()
    return {"thought": thought, "queue": queue}


def test_queue_comments_are_read_by_queue_members_only(
    owner: Any, member: Any, stranger: Any, staff: Any, comments: dict[str, Any]
) -> None:
    assert _refs(member, "queue") != set()
    assert _refs(owner, "queue") == set()
    assert _refs(stranger, "queue") == set()
    assert _refs(staff, "queue") != set()


def test_comments_outside_a_queue_follow_their_agent(
    owner: Any, stranger: Any, comments: dict[str, Any]
) -> None:
    assert _refs(owner, "loose") != set()
    assert _refs(stranger, "loose") == set()


def test_a_key_never_reads_review_comments(
    agent: Any, comments: dict[str, Any]
) -> None:
    docs = documents_visible(user=None, agent_id=agent.pk)
    assert not docs.filter(kind="review_comment").exists()
    assert documents_visible(user=None, agent_id=None).count() == 0


def test_the_score_filter_keeps_subjects_scored_in_range(
    owner: Any, agent: Any, comments: dict[str, Any]
) -> None:
    other = thought_make(agent, "plain thought two", minutes=1)
    index_pass()
    thought = str(comments["thought"].pk)
    assert _refs(owner, "plain", score="quality") == {thought}
    assert _refs(owner, "plain", score="quality", score_min="4") == {thought}
    assert _refs(owner, "plain", score="quality", score_max="3") == set()
    assert _refs(owner, "plain") == {thought, str(other.pk)}
    assert _refs(owner, "plain", score="quality", score_min="4.5") == set()
