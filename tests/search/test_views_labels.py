"""The search page in words a person reads: the filter that keeps what could
be acted on is called so on the form and in its error, and the hits come
under their own heading."""

from __future__ import annotations

from typing import Any

import pytest

from tests.search.search_support import two_owners

pytestmark = pytest.mark.django_db
URL = "/search/"


def test_the_actionable_filter_is_labelled_in_words(owner_client: Any) -> None:
    html = owner_client.get(URL).content.decode()

    assert '<label for="f-eligible">Actionable</label>' in html
    assert ">Eligible<" not in html


def test_a_bad_actionable_value_is_a_400_naming_the_filter(owner_client: Any) -> None:
    response = owner_client.get(URL, {"q": "lava", "eligible": "maybe"})

    html = response.content.decode()
    assert response.status_code == 400
    errors = html.split('id="search-errors"')[1].split("</div>")[0]
    assert "<li>Actionable: " in errors
    assert 'id="search-hits"' not in html


def test_hits_come_under_a_results_heading_before_the_saved_searches(
    owner_client: Any, agent: Any, stranger: Any
) -> None:
    two_owners(agent, stranger)

    html = owner_client.get(URL, {"q": "lava"}).content.decode()

    results = html.index('<h2 id="results-heading">Results</h2>')
    assert results < html.index('id="search-hits"') < html.index("Saved searches")
