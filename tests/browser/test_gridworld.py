"""Gridworld pages in Chromium: start a batch, open an episode, step it, verify."""

from __future__ import annotations

from typing import Any

import pytest

from gridworld.models import EpisodeBatch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_start_a_batch_open_an_episode_step_it_and_verify(
    page: Any, live_server: Any, owner: Any, screenshot: Any, log_in: Any
) -> None:
    log_in("alice", "pw-alice")
    page.click("nav >> text=Gridworld")
    page.click("summary:has-text('New batch')")
    page.fill("input[name=episodes]", "12")
    page.fill("input[name=seed]", "42")
    page.click("main form button[type=submit]")
    # Celery runs eagerly in tests: the chord runs when the request commits.
    page.wait_for_url(f"{live_server.url}/gridworld/batches/*/")
    page.wait_for_function(
        "document.getElementById('batch-status').textContent.trim() === 'completed'",
        timeout=20000,
    )
    assert "PASS" in page.inner_text("section.tiles")
    page.wait_for_selector("#gw-steps .main-svg")
    page.wait_for_selector("#gw-distance .main-svg")
    screenshot("gridworld-batch")
    batch = EpisodeBatch.objects.get()
    assert batch.run.config["startedVia"] == "web"

    page.click("a[href$='/episodes/3/']")
    page.wait_for_url(f"{live_server.url}/gridworld/batches/{batch.pk}/episodes/3/")
    page.wait_for_selector("#gw-grid .main-svg")
    page.wait_for_selector("#gw-series .main-svg")
    # The slider steps the agent back to the start.
    page.evaluate(
        "Plotly.animate('gw-grid', ['0'], {mode: 'immediate', frame: {duration: 0}})"
    )
    page.wait_for_timeout(300)
    agent_x = page.evaluate("document.getElementById('gw-grid').data[2].x[0]")
    assert agent_x == 0
    page.click("text=Verify by replay")
    assert "Verified" in page.inner_text(".gw-verdict")
    screenshot("gridworld-episode")
    assert page.js_errors == []
