"""A reviewer's sitting in a real Chromium: the queue's page, then ten items
scored with the keyboard alone and one skipped, and the progress figures of
the queue pages updated; the same form works with JavaScript off; every
review page fits a phone's width. Screenshots at 1280 and 390 px go to the
test artifacts (``browser/reviews-*.png``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reviews.models import ReviewAssignment, ReviewQueue, Score
from reviews.services.queues import items_add
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import DESKTOP
from tests.reviews.review_pages_support import configs_make, queue_make, thoughts_make
from tests.reviews.subjects_support import decision_make, episode_make, scenario_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reviewer_scores_ten_items_by_keyboard_and_skips_one(
    page: Any, live_server: Any, owner: Any, agent: Any, log_in: Any, screenshot: Any
) -> None:
    queue = queue_make(members=[owner], thoughts=thoughts_make(agent, 12))
    log_in("alice", "pw-alice")

    page.goto(f"{live_server.url}/reviews/queues/{queue.pk}/")
    assert page.locator("#reviews-done").inner_text() == "0 of 12"
    screenshot("reviews-queue-before")
    with page.expect_navigation():
        page.click("#start-reviewing")

    for number in range(11):
        assert (
            f"thought number {number}:" in page.locator("#subject-title").inner_text()
        )
        if number == 0:
            page.keyboard.press("?")
            assert page.locator("#shortcut-help").is_visible()
            screenshot("reviews-sitting-help")
            page.keyboard.press("?")
            assert page.locator("#shortcut-help").is_hidden()
        if number == 4:
            with page.expect_navigation():
                page.keyboard.press("s")
            continue
        page.keyboard.press("1" if number % 2 else "3")  # helpful: good / bad
        page.keyboard.press(str(1 + number % 5))  # quality 1..5
        page.keyboard.press("y" if number % 3 else "n")  # grounded
        if number == 2:
            page.keyboard.press("c")
            page.keyboard.type("goal is vague")
            page.keyboard.press("Escape")
        assert page.locator("fieldset.active").count() == 1
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.locator(".messages").inner_text() == "Scored."

    assert "thought number 11:" in page.locator("#subject-title").inner_text()
    screenshot("reviews-sitting")
    assert page.js_errors == []

    scores = Score.objects.filter(author=owner)
    assert scores.count() == 30  # ten items, three configs each
    third = {s.config.name: s for s in scores.filter(ref=queue.items.all()[2].ref)}
    assert third["helpful"].value_label == "bad"
    assert third["quality"].value_number == 3.0
    assert third["grounded"].value_label == "true"
    assert third["grounded"].comment == "goal is vague"
    skipped = ReviewAssignment.objects.get(status="skipped")
    assert skipped.item.title.startswith("thought number 4:")

    page.goto(f"{live_server.url}/reviews/queues/{queue.pk}/")
    assert page.locator("#reviews-done").inner_text() == "10 of 12"
    assert page.locator("#skipped").inner_text() == "1"
    row = page.locator('tr[data-reviewer="alice"]')
    assert row.locator("td.done").inner_text() == "10"
    assert row.locator("td.skipped").inner_text() == "1"
    screenshot("reviews-queue-after")
    page.goto(f"{live_server.url}/reviews/")
    listed = page.locator(f'tr[data-queue="{queue.pk}"]')
    assert listed.locator("td.reviews-done").inner_text().startswith("10 of 12")
    assert page.js_errors == []


def test_the_sitting_works_without_javascript(
    browser: Any, live_server: Any, owner: Any, agent: Any
) -> None:
    queue = queue_make(members=[owner], thoughts=thoughts_make(agent, 2))
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "pw-alice")
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/reviews/queues/{queue.pk}/review/")

    page.check('input[name="value-helpful"][value="meh"]')
    page.check('input[name="value-grounded"][value="yes"]')
    page.click("#submit-score")  # quality left out: refused, nothing stored
    assert "a value is needed." in page.locator('[data-field="quality"]').inner_text()
    assert page.is_checked('input[name="value-helpful"][value="meh"]')
    assert not Score.objects.exists()

    page.check('input[name="value-quality"][value="4"]')
    page.click("#submit-score")
    assert "thought number 1:" in page.locator("#subject-title").inner_text()
    assert Score.objects.filter(author=owner).count() == 3
    context.close()


def test_every_review_page_fits_a_phone(
    page: Any,
    live_server: Any,
    owner: Any,
    agent: Any,
    staff: Any,
    suites: Path,
    log_in: Any,
    screenshot: Any,
) -> None:
    scenario_run(suites)
    second = scenario_run(suites)
    configs = configs_make()
    queue = queue_make(members=[owner], thoughts=[], configs=configs, name="Mixed")
    items_add(
        queue,
        [
            ("scenario_result", f"{second.run_id}/smoke:stable-plains"),
            ("episode", str(episode_make().pk)),
            ("keepalive_decision", str(decision_make().pk)),
            ("thought", str(thoughts_make(agent, 1)[0].pk)),
        ],
    )
    log_in("alice", "pw-alice")
    visits = [
        ("reviews-list", "/reviews/"),
        ("reviews-queue", f"/reviews/queues/{queue.pk}/"),
        ("reviews-configs", "/reviews/configs/"),
        ("reviews-config", "/reviews/configs/helpful/"),
        ("reviews-forbidden", "/reviews/configs/new"),
    ]
    for name, path in visits:
        page.goto(f"{live_server.url}{path}")
        screenshot(name)
        page.set_viewport_size({"width": 390, "height": 844})
        assert not page_overflows(page), path
        page.set_viewport_size(DESKTOP)
    # Only staff change configs: the reviewer got the refusal page.
    assert page.js_errors == [f"403 {live_server.url}/reviews/configs/new"]
    assert page.locator("#refusal").is_visible()
    page.js_errors.clear()
    page.goto(f"{live_server.url}/reviews/queues/{queue.pk}/review/")
    for name in ("scenario", "episode", "decision", "thought"):
        screenshot(f"reviews-sitting-{name}")
        page.set_viewport_size({"width": 390, "height": 844})
        assert not page_overflows(page), name
        page.set_viewport_size(DESKTOP)
        if name == "scenario":
            assert page.locator(".answers.side-by-side .answer").count() == 2
        with page.expect_navigation():
            page.keyboard.press("s")
    assert "Nothing left for you" in page.locator("#nothing-left").inner_text()
    page.context.clear_cookies()
    log_in("staff", "pw-staff")
    for name, path in [
        ("reviews-queue-new", "/reviews/queues/new"),
        ("reviews-queue-staff", f"/reviews/queues/{queue.pk}/"),
        ("reviews-config-new", "/reviews/configs/new"),
        ("reviews-config-staff", "/reviews/configs/helpful/"),
        ("reviews-config-version", "/reviews/configs/helpful/version"),
        (
            "reviews-queue-from-compare",
            f"/reviews/queues/new?from_compare=a...{second.run_id}&cases=flips",
        ),
    ]:
        page.goto(f"{live_server.url}{path}")
        screenshot(name)
        page.set_viewport_size({"width": 390, "height": 844})
        assert not page_overflows(page), path
        page.set_viewport_size(DESKTOP)
    assert page.js_errors == []
    assert ReviewQueue.objects.count() == 1
