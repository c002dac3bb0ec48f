"""A gridworld batch's progress in Chromium, on its page and on the list.

No worker runs here: the test moves the batch's run forward in the
database itself and checks that the pages show each step (one request at
a time, static/js/live_poll.js) and turn into the finished view when the
run is over.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from evals.models import Run
from gridworld.services.batches import batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _advance(run_pk: int, **fields: Any) -> None:
    Run.objects.filter(pk=run_pk).update(**fields)


def _shown(page: Any, selector: str, text: str) -> None:
    # expect() polls from Playwright's own script: page.wait_for_function
    # with a condition that is not yet true needs eval, which the pages'
    # CSP forbids.
    expect(page.locator(selector)).to_have_text(text, timeout=10000)


def test_batch_page_follows_progress_then_shows_the_finished_view(
    page: Any, live_server: Any, owner: Any, log_in: Any, screenshot: Any
) -> None:
    batch = batch_create(
        config={"map": "hazard", "episodes": 10, "seed": 3}, schedule=False
    )
    log_in("alice", "pw-alice")
    page.goto(f"{live_server.url}{batch.get_absolute_url()}")
    bar = "#batch-progress progress"
    assert page.get_attribute(bar, "aria-labelledby") == "batch-progress-text"
    assert page.inner_text("#batch-progress-text") == "0 of 10 episodes done"

    _advance(batch.run.pk, status="running", progress_done=3)
    _shown(page, "#batch-progress-text", "3 of 10 episodes done")
    assert page.get_attribute(bar, "value") == "3"
    assert page.inner_text("#batch-status") == "running"

    _advance(batch.run.pk, progress_done=7)
    _shown(page, "#batch-progress-text", "7 of 10 episodes done")
    screenshot("gridworld-batch-running")

    # Finished: the page reloads into the finished view (no poller there).
    _advance(batch.run.pk, status="completed", progress_done=10)
    expect(page.locator("#batch-progress")).to_have_attribute(
        "data-active", "", timeout=10000
    )
    assert page.inner_text("#batch-status") == "completed"
    assert page.inner_text("#batch-progress-text") == "10 of 10 episodes done"
    assert page.js_errors == []


def test_batch_list_follows_every_active_batch_then_reloads(
    page: Any, live_server: Any, owner: Any, log_in: Any, screenshot: Any
) -> None:
    first = batch_create(
        config={"map": "hazard", "episodes": 4, "seed": 1}, schedule=False
    )
    second = batch_create(
        config={"map": "hazard", "episodes": 6, "seed": 2}, schedule=False
    )
    log_in("alice", "pw-alice")
    page.goto(f"{live_server.url}/gridworld/")
    assert page.inner_text(f"#gw-progress-{first.pk}") == "0 of 4"

    _advance(first.run.pk, status="running", progress_done=2)
    _advance(second.run.pk, status="running", progress_done=5)
    _shown(page, f"#gw-progress-{first.pk}", "2 of 4")
    _shown(page, f"#gw-progress-{second.pk}", "5 of 6")
    screenshot("gridworld-batches-running")

    # One batch finished, one still running: no reload yet.
    _advance(first.run.pk, status="completed", progress_done=4)
    _shown(page, f"#gw-progress-{first.pk}", "4 of 4")
    assert page.locator("#gw-batches tr[data-active='1']").count() == 2

    _advance(second.run.pk, status="completed", progress_done=6)
    expect(page.locator("#gw-batches tr[data-active='1']")).to_have_count(
        0, timeout=10000
    )
    assert page.inner_text(f"#gw-progress-{second.pk}") == "6 of 6"
    assert page.js_errors == []
