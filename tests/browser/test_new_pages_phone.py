"""The reviews, search, agents and audit pages on a phone (390 px): nothing
pushes the page sideways, the queue list's Review button is in view, the
site nav (thirteen entries) stays short with finger-sized entries, and the
keyboard focus is drawn on it."""

from __future__ import annotations

from typing import Any

import pytest

from stream.services.agents import agent_create
from tests.browser.conftest import PHONE
from tests.reviews.review_pages_support import configs_make, queue_make, thoughts_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _overflows(page: Any) -> bool:
    return bool(
        page.evaluate(
            "document.scrollingElement.scrollWidth > "
            "document.scrollingElement.clientWidth"
        )
    )


@pytest.fixture
def world(staff: Any) -> Any:
    agent = agent_create(name="scout", owner=staff).agent
    return queue_make(
        members=[staff], thoughts=thoughts_make(agent, 2), configs=configs_make()
    )


def test_the_new_pages_fit_a_phone(
    page: Any, live_server: Any, log_in: Any, world: Any
) -> None:
    log_in("staff", "pw-staff")
    page.set_viewport_size(PHONE)
    for path in (
        "/reviews/",
        f"/reviews/queues/{world.pk}/",
        f"/reviews/queues/{world.pk}/review/",
        "/reviews/configs/",
        "/reviews/agreement/",
        "/search/?q=oak",
        "/agents/",
        "/agents/scout/",
        "/audit/",
    ):
        page.goto(f"{live_server.url}{path}")
        assert not _overflows(page), path


def test_the_queue_lists_review_button_is_in_view_on_a_phone(
    page: Any, live_server: Any, log_in: Any, world: Any
) -> None:
    log_in("staff", "pw-staff")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/reviews/")

    box = page.locator(f'#queues tr[data-queue="{world.pk}"] a.button').bounding_box()

    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_the_nav_stays_short_with_finger_sized_entries_on_a_phone(
    page: Any, live_server: Any, log_in: Any, world: Any
) -> None:
    log_in("staff", "pw-staff")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/reviews/")

    header = page.locator("header.topbar").bounding_box()
    heights = page.eval_on_selector_all(
        "header nav a", "links => links.map(a => a.getBoundingClientRect().height)"
    )
    log_out = page.locator("header .logout button").bounding_box()
    brand = page.locator("header .brand").bounding_box()

    assert header is not None and header["height"] <= 150
    assert len(heights) == 14 and min(heights) >= 24
    # The user's controls share the brand's line instead of a line of their own.
    assert log_out is not None and brand is not None
    assert log_out["y"] < brand["y"] + brand["height"]


def test_keyboard_focus_on_the_nav_is_drawn(
    page: Any, live_server: Any, log_in: Any, world: Any
) -> None:
    log_in("staff", "pw-staff")
    page.goto(f"{live_server.url}/search/")
    page.locator("header nav a").first.focus()
    page.keyboard.press("Tab")

    outline = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [document.activeElement.closest('nav') !== null,"
        " s.outlineStyle, s.outlineWidth]; })()"
    )

    assert outline[0] is True
    assert outline[1] != "none" and outline[2] != "0px"


def test_an_audit_entry_reads_as_labelled_lines_on_a_phone(
    page: Any, live_server: Any, log_in: Any, world: Any
) -> None:
    log_in("staff", "pw-staff")
    page.goto(f"{live_server.url}/agents/scout/")
    page.fill("#id_name", "laptop")
    page.locator("main form button[type=submit]").click()
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/audit/")

    target = page.locator('#audit-entries td[data-label="To what"]').first
    box = target.bounding_box()
    label = target.evaluate("td => getComputedStyle(td, '::before').content")

    assert not _overflows(page)
    assert box is not None and box["x"] + box["width"] <= PHONE["width"]
    assert "To what" in label
    assert "scout / laptop" in target.inner_text()


def test_the_reviewers_waiting_count_is_in_view_on_a_phone(
    page: Any, live_server: Any, log_in: Any, world: Any
) -> None:
    log_in("staff", "pw-staff")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/reviews/queues/{world.pk}/")

    cells = page.locator('#reviewers tr[data-reviewer="staff"] td')
    box = cells.last.bounding_box()

    assert box is not None and box["x"] + box["width"] <= PHONE["width"]
