"""Gridworld figures in Chromium: a batch's IQM and mean table and its
performance profile (the menu switches the metric), then the compare form
to another batch on the same seeds, at desktop and phone width."""

from __future__ import annotations

from typing import Any

import pytest

from evals.services.runs.lifecycle import run_execute
from gridworld.core.batch_figures import EPISODE_METRICS
from gridworld.models import EpisodeBatch
from gridworld.services.batches import batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_PAGE_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


def played(**config: Any) -> EpisodeBatch:
    batch = batch_create(
        config={"map": "hazard", "episodes": 30, "seed": 0, **config}, schedule=False
    )
    run_execute(run=batch.run)
    return batch


def profile_axis(page: Any) -> str:
    return str(
        page.evaluate("document.getElementById('gw-profile').layout.xaxis.title.text")
    )


def test_batch_figures_profile_menu_and_compare_with_another_batch(
    page: Any, live_server: Any, owner: Any, screenshot: Any, log_in: Any
) -> None:
    planner = played(proposer="planner")
    greedy = played(proposer="greedy", governor="none", seed=10)
    log_in("alice", "pw-alice")

    page.goto(f"{live_server.url}{planner.get_absolute_url()}")
    page.wait_for_selector("#gw-profile .main-svg")
    rows = page.locator("#gw-figures-table tbody tr")
    assert rows.count() == len(EPISODE_METRICS)
    assert "n = 30 episodes" in page.inner_text("#gw-figures-basis")
    assert profile_axis(page) == "\u03c4: passed (share, higher is better)"
    page.locator("#gw-profile .updatemenu-header-group").click()
    page.locator("#gw-profile .updatemenu-item-text", has_text="steps").first.click()
    page.wait_for_function(
        "document.getElementById('gw-profile').layout.xaxis.title.text"
        " === '\u03c4: steps (steps, lower is better)'"
    )
    visible = page.evaluate(
        "document.getElementById('gw-profile').data.map(t => t.visible)"
    )
    assert visible.count(True) == 1 and visible[2] is True
    screenshot("gridworld-batch-figures")
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(600)
    assert page.evaluate(NO_PAGE_SCROLL)
    page.set_viewport_size({"width": 1280, "height": 900})

    page.select_option("#gw-compare", str(greedy.pk))
    page.click("form.gw-compare-form button[type=submit]")
    page.wait_for_url(
        f"{live_server.url}/gridworld/batches/{planner.pk}/compare/{greedy.pk}/"
    )
    page.wait_for_selector("#gw-profile .main-svg")
    assert "n = 20 paired seeds" in page.inner_text("#gw-compare-basis")
    table = page.inner_text("#gw-improvement-table")
    assert "P(A > B)" in table
    names = page.evaluate(
        "document.getElementById('gw-profile').data.filter(t => t.visible)"
        ".map(t => t.name)"
    )
    assert names == [
        f"#{planner.pk} planner/lexicographic",
        f"#{greedy.pk} greedy/none",
    ]
    screenshot("gridworld-batch-compare")
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(600)
    assert page.evaluate(NO_PAGE_SCROLL)

    other_map = played(map="maze", episodes=3)
    page.goto(
        f"{live_server.url}/gridworld/batches/{planner.pk}/compare/{other_map.pk}/"
    )
    assert "only on the same map" in page.inner_text("#gw-compare-problem")
    assert page.js_errors == []
