"""Saved searches: stored with their filters, refused with the field named
and nothing stored, deleted only by their owner."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import NotFound
from search.core.query import QueryInvalid
from search.models import SavedSearch
from search.services.saved import (
    saved_search_create,
    saved_search_delete,
    saved_search_get,
)

pytestmark = pytest.mark.django_db


def test_a_search_is_saved_with_its_filters(owner: Any) -> None:
    saved = saved_search_create(
        owner=owner,
        name="  creepers   last week ",
        query="creeper*",
        params={"q": "creeper*", "kind": "thought", "run": "", "cursor": "x"},
    )
    assert (saved.name, saved.query, saved.filters) == (
        "creepers last week",
        "creeper*",
        {"kind": "thought"},
    )


@pytest.mark.parametrize(
    ("name", "query", "params", "field"),
    [
        ("", "creeper", {}, "name"),
        ("x" * 201, "creeper", {}, "name"),
        ("ok", "* OR -", {}, "q"),
        ("ok", "creeper", {"kind": "bogus"}, "kind"),
        ("ok", "creeper", {"since": "later"}, "since"),
    ],
)
def test_bad_input_names_the_field_and_stores_nothing(
    owner: Any, name: str, query: str, params: dict[str, str], field: str
) -> None:
    with pytest.raises(QueryInvalid) as caught:
        saved_search_create(owner=owner, name=name, query=query, params=params)
    assert caught.value.field == field
    assert not SavedSearch.objects.exists()


def test_a_name_is_used_once_per_owner(owner: Any, member: Any) -> None:
    saved_search_create(owner=owner, name="mine", query="a", params={})
    with pytest.raises(QueryInvalid, match="already have"):
        saved_search_create(owner=owner, name="mine", query="b", params={})
    saved_search_create(owner=member, name="mine", query="b", params={})
    assert SavedSearch.objects.count() == 2


def test_only_the_owner_gets_or_deletes_it(
    owner: Any, stranger: Any, staff: Any
) -> None:
    saved = saved_search_create(owner=owner, name="mine", query="a", params={})
    with pytest.raises(NotFound):
        saved_search_get(saved_search_id=saved.pk, user=stranger)
    assert saved_search_get(saved_search_id=saved.pk, user=staff) == saved
    with pytest.raises(NotFound):
        saved_search_delete(saved_search_id=saved.pk, user=stranger)
    saved_search_delete(saved_search_id=saved.pk, user=owner)
    assert not SavedSearch.objects.exists()
