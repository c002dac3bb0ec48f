"""saved_search_subjects: the review subjects a saved search finds, among
what its user may read."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import NotFound
from search.facade import saved_search_subjects
from search.services.indexer import index_pass
from search.services.saved import saved_search_create
from tests.search.search_support import thought_make, two_owners

pytestmark = pytest.mark.django_db


def test_subjects_are_the_matching_thoughts_newest_first(
    owner: Any, agent: Any, stranger: Any
) -> None:
    world = two_owners(agent, stranger)
    saved = saved_search_create(owner=owner, name="c", query="creeper", params={})
    assert saved_search_subjects(saved.pk, owner, 10) == [
        ("thought", str(world["alpha_2"].pk)),
        ("thought", str(world["alpha_1"].pk)),
    ]
    assert saved_search_subjects(saved.pk, owner, 1) == [
        ("thought", str(world["alpha_2"].pk))
    ]


def test_filters_of_the_saved_search_apply(owner: Any, agent: Any) -> None:
    thought_make(agent, "zombie one", type="observation")
    wanted = thought_make(agent, "zombie two", minutes=1)
    index_pass()
    saved = saved_search_create(
        owner=owner, name="z", query="zombie", params={"flag": "reflection"}
    )
    assert saved_search_subjects(saved.pk, owner, 10) == [("thought", str(wanted.pk))]


def test_review_comments_and_unreadable_documents_are_left_out(
    owner: Any, stranger: Any, agent: Any
) -> None:
    from reviews.models import Score
    from reviews.services.configs import config_create

    two_owners(agent, stranger)
    config = config_create(name="quality", kind="numeric", min_value=1, max_value=5)
    Score.objects.create(
        config=config, kind="thought", ref="1", value_number=2,
        comment="creeper again", source="review", author=stranger,
    )  # fmt: skip
    index_pass()
    saved = saved_search_create(owner=stranger, name="c", query="creeper", params={})
    subjects = saved_search_subjects(saved.pk, stranger, 10)
    assert len(subjects) == 1 and subjects[0][0] == "thought"


def test_another_users_saved_search_is_not_found(owner: Any, stranger: Any) -> None:
    saved = saved_search_create(owner=owner, name="c", query="creeper", params={})
    with pytest.raises(NotFound):
        saved_search_subjects(saved.pk, stranger, 10)
