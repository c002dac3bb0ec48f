"""The search page in a real Chromium: type a query, read the highlighted
hits and follow one to its thought; save the search and apply it again;
the page fits a phone's width. Screenshots at 1280 and 390 px go to the
test artifacts (``browser/search-*.png``)."""

from __future__ import annotations

from typing import Any

import pytest

from search.services.indexer import index_pass
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import PHONE
from tests.search.search_support import thought_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_search_finds_marks_links_and_saves(
    page: Any, live_server: Any, owner: Any, agent: Any, log_in: Any, screenshot: Any
) -> None:
    owner.set_password("pw-alice")
    owner.save()
    thought = thought_make(
        agent,
        "Ein Creeper explodierte neben der Straße; "
        + "a very-long-unbroken-word-" * 8
        + " and the iron golem watched.",
    )
    thought_make(agent, "Nothing to see here", minutes=1)
    index_pass()
    log_in("alice", "pw-alice")
    page.goto(f"{live_server.url}/search/")
    page.fill("#q", "strasse creep*")
    page.press("#q", "Enter")
    page.wait_for_selector("#search-hits mark")
    marks = page.locator("#search-hits mark").all_inner_texts()
    assert marks == ["Creeper", "Straße"]
    screenshot("search-hits")
    page.set_viewport_size(PHONE)
    assert not page_overflows(page)
    page.fill("#save-name", "german creepers")
    page.click("#save-search button[type=submit]")
    page.wait_for_selector("#saved-searches a")
    assert page.locator("#saved-searches a").inner_text() == "german creepers"
    page.click("#saved-searches a")
    page.wait_for_selector("#search-hits mark")
    page.click("#search-hits li a")
    page.wait_for_url(f"**/stream/alpha/thoughts/{thought.pk}/")


def test_an_operators_only_query_says_why(
    page: Any, live_server: Any, owner: Any, log_in: Any
) -> None:
    owner.set_password("pw-alice")
    owner.save()
    log_in("alice", "pw-alice")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/search/?q=*+OR+-")
    text = page.locator("#search-errors").inner_text()
    assert "Search for: The query has no word to look for" in text
    assert not page_overflows(page)
