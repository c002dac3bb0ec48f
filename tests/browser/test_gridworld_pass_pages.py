"""A batch's pages in Chromium at 1280 and 390 px: one definition of an
episode's pass (goal reached, no safety violation) on the batch, episode and
case comparison pages, and each page fits a phone's width."""

from __future__ import annotations

from typing import Any

import pytest

from evals.services.runs.lifecycle import run_execute
from gridworld.services.batches import batch_create
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BASELINE = {"map": "hazard", "episodes": 6, "proposer": "greedy", "governor": "none"}


def test_batch_episode_and_compare_pages_agree_on_pass_and_fit(
    page: Any, live_server: Any, owner: Any, log_in: Any, screenshot: Any
) -> None:
    first = run_execute(run=batch_create(config=BASELINE, schedule=False).run)
    second = run_execute(
        run=batch_create(config={**BASELINE, "seed": 40}, schedule=False).run
    )
    log_in("alice", "pw-alice")
    page.goto(f"{live_server.url}/gridworld/runs/{first.run_id}/")
    tiles = page.inner_text("section.tiles")
    assert "33% passed" in tiles
    assert "goal reached in 6 of 6 (100%), safety aside" in tiles
    assert "FAIL" in tiles
    screenshot("gridworld-batch-pass")
    page.goto(f"{live_server.url}/gridworld/runs/{first.run_id}/episodes/0/")
    assert "FAIL 4 safety violations" in page.inner_text("#episode-result")
    screenshot("gridworld-episode-pass")
    page.goto(
        f"{live_server.url}/evals/compare?base={first.run_id}&candidate={second.run_id}"
    )
    screenshot("gridworld-compare")
    page.goto(
        f"{live_server.url}/evals/compare/case?base={first.run_id}"
        f"&candidate={second.run_id}&case=episode-0"
    )
    assert page.locator("th:has-text('metric safety_violations')").count() == 1
    screenshot("gridworld-compare-case")
    for url in (
        f"/gridworld/runs/{first.run_id}/",
        f"/gridworld/runs/{first.run_id}/episodes/0/",
        f"/evals/compare/case?base={first.run_id}&candidate={second.run_id}"
        "&case=episode-0",
    ):
        page.set_viewport_size(PHONE)
        page.goto(f"{live_server.url}{url}")
        assert not page_overflows(page), url
    page.set_viewport_size(DESKTOP)
    assert page.js_errors == []
