"""Pages at phone width in a real Chromium: the compare metrics table says
it scrolls and does scroll inside its box, and the charts show no tool bar
over their titles; a recorded run's page, the manifest format and the agent
list fit the screen; every page has its icon."""

from __future__ import annotations

from typing import Any

import pytest

from evals.examples import example_manifest, example_run_summary
from evals.models import Run
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import benchmark_pack_create
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import PHONE
from tests.stream.conftest import CALM_FACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_phone_width_pages_fit_and_the_metrics_table_says_it_scrolls(
    page: Any, live_server: Any, owner: Any, suites: Any, log_in: Any
) -> None:
    runs = [
        run_execute(
            run=eval_run_create(
                suite_path=suites / "idle-v1.jsonl",
                profile="balanced",
                mode="thought_only",
                model="scripted",
                script_path=suites / script if script else None,
                schedule=False,
            )
        )
        for script in (None, "idle-v1-regressed.script.jsonl")
    ]
    benchmark_pack_create(document=example_manifest("ama-memory"))
    benchmark_run_record(
        document=example_run_summary(
            "pr-1", results={"case-0": True, "case-1": False}, gitRef="pr-1@abc"
        )
    )
    log_in("alice", "pw-alice")
    page.set_viewport_size(PHONE)

    page.goto(
        f"{live_server.url}/evals/compare?base={runs[0].run_id}"
        f"&candidate={runs[1].run_id}"
    )
    hint = page.locator(".scroll-hint").first
    assert hint.is_visible()
    assert "Swipe the table sideways" in hint.inner_text()
    wrap = page.locator(".table-wrap:has(table.metrics)").first
    assert wrap.evaluate("box => box.scrollWidth > box.clientWidth")
    assert not page_overflows(page)
    # The chart's tool bar would sit over its title on a phone: left out.
    bar = page.locator(".js-plotly-plot .modebar-container").first
    bar.wait_for(state="attached")
    assert bar.evaluate("bar => getComputedStyle(bar).display") == "none"

    for path in (
        "/evals/runs/pr-1/",
        "/benchmarks/upload/manifest-format",
        "/benchmarks/upload",
        "/stream/",
    ):
        page.goto(f"{live_server.url}{path}")
        assert not page_overflows(page), path
    assert Run.objects.get(run_id="pr-1").git_ref == "pr-1@abc"
    assert page.locator("link[rel=icon]").get_attribute("href") == (
        "/static/favicon.ico"
    )
    assert page.js_errors == []


def test_a_long_benchmark_id_heading_breaks_instead_of_widening_the_page(
    page: Any, live_server: Any, owner: Any, log_in: Any, settings: Any
) -> None:
    """A baseline comparison heads each benchmark with its id; a gridworld id
    (gridworld:hazard:planner:lexicographic) is one long word wider than a
    phone and wraps inside its heading."""
    from evals.services.baselines import baseline_snapshot_create
    from gridworld.services.batches import batch_create

    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    config = {"map": "hazard", "episodes": 2, "seed": 3}
    run_execute(run=batch_create(config=config, schedule=False).run)
    greedy = {**config, "proposer": "greedy", "governor": "none"}
    run_execute(run=batch_create(config=greedy, schedule=False).run)
    baseline_snapshot_create(snapshot_id="phone")
    run_execute(run=batch_create(config={**config, "seed": 9}, schedule=False).run)
    log_in("alice", "pw-alice")
    page.set_viewport_size(PHONE)

    page.goto(f"{live_server.url}/evals/compare?snapshot=phone")
    heading = page.locator("h3", has_text="gridworld:hazard:planner:lexicographic")
    assert heading.first.is_visible()
    assert not page_overflows(page)
    page.goto(f"{live_server.url}/benchmarks/gridworld:hazard:planner:lexicographic/")
    assert not page_overflows(page)
    assert page.js_errors == []


def test_a_thought_page_fits_both_widths(
    page: Any,
    live_server: Any,
    owner: Any,
    agent: Any,
    agent_client: Any,
    log_in: Any,
    screenshot: Any,
) -> None:
    from stream.services.planning import planning_poll_once

    agent_client.post(
        "/api/cognitive-stream/percepts", {"facts": CALM_FACTS}, format="json"
    )
    long_words = " ".join(["oak_log_and_birch_log_near_the_river"] * 12)
    thought_id = agent_client.post(
        "/api/cognitive-stream/thoughts",
        {"content": f"Trees here: {long_words}. [GOAL: collect oak_log 2]"},
        format="json",
    ).json()["id"]
    planning_poll_once(agent=agent)
    log_in("alice", "pw-alice")

    page.goto(f"{live_server.url}/stream/alpha/")
    page.locator(f'a[href="/stream/alpha/thoughts/{thought_id}/"]').first.click()
    page.wait_for_url(f"{live_server.url}/stream/alpha/thoughts/{thought_id}/")
    assert page.locator("h1").inner_text() == f"Thought {thought_id}"
    screenshot("thought-detail")
    page.set_viewport_size(PHONE)
    assert not page_overflows(page)
    assert page.js_errors == []
