"""The search page: hits with highlighted snippets linked to their pages,
clear errors (400) naming the field in words, older pages, saved searches."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from search.models import SavedSearch
from search.services.indexer import index_pass
from tests.search.search_support import thought_make, two_owners

pytestmark = pytest.mark.django_db
URL = "/search/"


def test_route_names() -> None:
    assert reverse("search:search") == URL
    assert reverse("search:saved-create") == "/search/saved"
    assert reverse("search:saved-delete", args=[3]) == "/search/saved/3/delete"


def test_login_is_required(client: Any) -> None:
    response = client.get(URL, {"q": "creeper"})
    assert response.status_code == 302


def test_the_empty_page_explains_and_lists_no_hits(owner_client: Any) -> None:
    response = owner_client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert "How to write a search" in html
    assert 'id="search-hits"' not in html
    assert "None yet." in html


def test_hits_are_escaped_marked_and_linked(
    owner_client: Any, agent: Any, stranger: Any
) -> None:
    world = two_owners(agent, stranger)
    html = owner_client.get(URL, {"q": "lava"}).content.decode()
    thought = world["alpha_2"]
    assert f'href="/stream/alpha/thoughts/{thought.pk}/"' in html
    assert "&lt;b&gt;<mark>lava</mark>&lt;/b&gt;" in html
    assert "<b>lava</b>" not in html
    assert "agent alpha" in html
    assert "secret base" not in owner_client.get(URL, {"q": "creeper"}).content.decode()


def test_an_operators_only_query_is_a_400_with_the_reason_in_words(
    owner_client: Any,
) -> None:
    response = owner_client.get(URL, {"q": '* OR - ""', "kind": "nope"})
    html = response.content.decode()
    assert response.status_code == 400
    assert "Search for: The query has no word to look for" in html
    assert "What: kind must be one of" in html
    assert "Traceback" not in html and "/work/" not in html


def test_nothing_found_says_what_to_try(owner_client: Any, agent: Any) -> None:
    html = owner_client.get(URL, {"q": "nothingatall"}).content.decode()
    assert "Nothing found." in html


def test_older_pages_follow_the_cursor(owner_client: Any, agent: Any) -> None:
    for i in range(25):
        thought_make(agent, f"zombie {i}", minutes=i)
    index_pass()
    first = owner_client.get(URL, {"q": "zombie"})
    next_url = first.context["next_url"]
    assert next_url.startswith("/search/?q=zombie&cursor=")
    second = owner_client.get(next_url)
    assert len(second.context["hits"]) == 5
    assert second.context["next_url"] == ""
    assert second.context["first_url"] == "/search/?q=zombie"


def test_a_search_is_saved_listed_and_deleted(owner_client: Any, owner: Any) -> None:
    response = owner_client.post(
        "/search/saved", {"q": "creeper*", "kind": "thought", "name": "creepers"}
    )
    assert response.status_code == 302
    saved = SavedSearch.objects.get()
    assert (saved.owner, saved.query, saved.filters) == (
        owner,
        "creeper*",
        {"kind": "thought"},
    )
    html = owner_client.get(URL).content.decode()
    assert 'href="/search/?q=creeper%2A&amp;kind=thought">creepers</a>' in html
    owner_client.post(f"/search/saved/{saved.pk}/delete")
    assert not SavedSearch.objects.exists()


def test_a_bad_save_stores_nothing_and_says_why(owner_client: Any) -> None:
    response = owner_client.post("/search/saved", {"q": "-", "name": "x"}, follow=True)
    assert "Not saved: Search for:" in response.content.decode()
    assert not SavedSearch.objects.exists()


def test_nobody_deletes_another_users_saved_search(
    owner: Any, stranger_client: Any
) -> None:
    saved = SavedSearch.objects.create(owner=owner, name="mine", query="a")
    response = stranger_client.post(f"/search/saved/{saved.pk}/delete", follow=True)
    assert "not yours" in response.content.decode()
    assert SavedSearch.objects.filter(pk=saved.pk).exists()


@pytest.mark.parametrize("q", ["\x00", '"' * 3, "x" * 5000, "((", "NEAR(a"])
def test_hostile_queries_give_a_page_never_a_500(owner_client: Any, q: str) -> None:
    assert owner_client.get(URL, {"q": q}).status_code in (200, 400)


def test_the_filters_fold_away_unless_one_is_in_use(owner_client: Any) -> None:
    plain = owner_client.get(URL, {"q": "x"}).content.decode()
    assert '<details class="help"><summary>Filters</summary>' in plain
    used = owner_client.get(URL, {"q": "x", "kind": "thought"}).content.decode()
    assert '<details class="help" open><summary>Filters (in use)</summary>' in used
    assert '<option value="thought" selected>' in used
