"""Filling a review queue from a saved search in a real Chromium: staff
follow "Review these results" on the search page, the new-queue page opens
with that saved search chosen, and the queue is made with what it finds.
The new-queue page, with every way to fill it, fits a phone's width."""

from __future__ import annotations

from typing import Any

import pytest

from reviews.models import ReviewItem, ReviewQueue
from search.services.indexer import index_pass
from search.services.saved import saved_search_create
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import PHONE
from tests.reviews.review_pages_support import configs_make
from tests.search.search_support import thought_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_review_the_results_of_a_saved_search(
    page: Any,
    live_server: Any,
    staff: Any,
    owner: Any,
    agent: Any,
    log_in: Any,
    screenshot: Any,
) -> None:
    configs = configs_make()
    found = [thought_make(agent, f"creeper number {n}", minutes=n) for n in (1, 2)]
    thought_make(agent, "an oak log", minutes=3)
    index_pass()
    saved = saved_search_create(
        owner=staff, name="creepers", query="creeper", params={}
    )
    log_in("staff", "pw-staff")

    page.goto(f"{live_server.url}/search/")
    page.click("#saved-searches a.review-these")
    page.wait_for_url(f"**/reviews/queues/new?saved_search={saved.pk}")
    assert page.locator("#id_fill_4").is_checked()
    assert page.locator("#id_saved_search").input_value() == str(saved.pk)
    page.set_viewport_size(PHONE)
    assert not page_overflows(page)
    screenshot("review-fill-new-queue-phone")
    page.check(f"input[name=configs][value='{configs[0].pk}']")
    page.fill("#id_members", "alice")
    page.click("form.card button[type=submit]")
    page.wait_for_selector("#start-reviewing, .messages, h1")

    queue = ReviewQueue.objects.get()
    assert page.url.endswith(f"/reviews/queues/{queue.pk}/")
    assert sorted(
        ReviewItem.objects.filter(queue=queue).values_list("ref", flat=True)
    ) == sorted(str(t.pk) for t in found)
    assert not page_overflows(page)


def test_the_new_queue_form_shows_only_the_chosen_ways_fields(
    page: Any, live_server: Any, staff: Any, log_in: Any
) -> None:
    configs_make()
    log_in("staff", "pw-staff")
    page.goto(f"{live_server.url}/reviews/queues/new")

    # Nothing chosen yet: no way's fields.
    assert not page.locator("#field-refs").is_visible()
    assert not page.locator("#field-agent").is_visible()
    page.check("input[name=fill][value=thoughts]")
    assert page.locator("#field-agent").is_visible()
    assert page.locator("#field-since").is_visible()
    assert page.locator("#field-eligible").is_visible()
    assert not page.locator("#field-refs").is_visible()
    assert not page.locator("#field-run_id").is_visible()
    page.check("input[name=fill][value=hand]")
    assert page.locator("#field-refs").is_visible()
    assert page.locator("#field-kind").is_visible()
    assert not page.locator("#field-agent").is_visible()
    # The fields every way shares stay.
    assert page.locator("#field-name").is_visible()
