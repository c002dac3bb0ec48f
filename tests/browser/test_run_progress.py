"""A run that takes a few seconds, as a run on a real model does: its page's
progress bar moves while it runs, shows true counts, keeps its place, and
ends full with the run completed before the page turns into the finished
view.

The model is a local OpenAI-compatible endpoint that answers each request
after ``DELAY_S``; a real Celery worker on the embedded broker runs the
run. The page's own script does the polling; the test only watches the
page (``watch_progress``: every change of the bar, its text and the status
as the page showed it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evals.models import Run
from tests.browser.conftest import DESKTOP, PHONE
from tests.integration.conftest import worker_factory  # noqa: F401 (fixture)
from tests.model_endpoint import ModelHandler, completion, serve

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCENARIOS = 20
# Per model request: the 20 scenarios of idle-v1 take about 4 s.
DELAY_S = 0.2
MODEL = "slow-local-model"


class SlowModel:
    """Counts the requests it has answered (counted before the answer is
    sent, so a scenario the worker has recorded is always counted)."""

    def __init__(self) -> None:
        self.answered = 0
        self.lock = threading.Lock()


@pytest.fixture
def slow_model() -> Iterator[tuple[str, SlowModel]]:
    model = SlowModel()

    class Handler(ModelHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.read_body()
            time.sleep(DELAY_S)
            with model.lock:
                model.answered += 1
            self.send_json(200, completion("Calm here; nothing to do now.", "1"))

    with serve(Handler) as url:
        yield url, model


def progressbar_of(page: Any) -> dict[str, Any]:
    """The progress bar as Chromium gives it to a screen reader."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    bars = [n for n in nodes if n.get("role", {}).get("value") == "progressbar"]
    assert len(bars) == 1, bars
    node = bars[0]
    found = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
    found["name"] = node.get("name", {}).get("value")
    found["valuenow"] = node.get("value", {}).get("value")
    return found


def test_a_long_run_moves_the_bar_with_true_counts_and_ends_full(
    page: Any,
    live_server: Any,
    owner: Any,
    suites: Path,
    log_in: Any,
    worker_factory: Any,  # noqa: F811
    slow_model: tuple[str, SlowModel],
    screenshot: Any,
    watch_progress: Any,
    settings: Any,
) -> None:
    endpoint, model = slow_model
    settings.OPENAI_BASE_URL = endpoint
    settings.OPENAI_MODEL = MODEL
    worker_factory(
        queue="runs,celery",  # eval runs are routed to the runs queue
        env={
            "OPENAI_BASE_URL": endpoint,
            "OPENAI_MODEL": MODEL,
            "EVALS_ARTIFACTS_DIR": str(settings.EVALS_ARTIFACTS_DIR),
            "EVALS_SUITES_DIR": str(suites),
        },
    )

    def answered() -> dict[str, Any]:
        # What the model had answered when the test heard of a change: the
        # page can never show more scenarios done than that.
        with model.lock:
            return {"answered": model.answered}

    reports = watch_progress(answered)
    log_in("alice", "pw-alice")
    page.click("text=New run")
    page.select_option("select[name=suite]", "idle-v1.jsonl")
    page.select_option("select[name=model]", "openai")
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/evals/runs/*/")

    # While it runs: the bar part way, at both widths, and what a screen
    # reader is told about it.
    def part_way() -> bool:
        return any(
            r["status"] == "running" and 0 < int(r["value"]) < SCENARIOS
            for r in reports
        )

    deadline = time.monotonic() + 30
    while not part_way():
        assert time.monotonic() < deadline, reports
        page.wait_for_timeout(50)
    bar = progressbar_of(page)
    assert 0 < bar["valuenow"] < SCENARIOS, bar
    assert (bar["valuemin"], bar["valuemax"]) == (0, SCENARIOS), bar
    # Named by its text, counts included (the count may have moved on
    # between the two reads, never back).
    count = int(bar["name"].split(" of ")[0])
    assert count >= bar["valuenow"], bar
    assert bar["name"] == f"{count} of {SCENARIOS} scenarios done", bar
    assert page.locator("#run-status").get_attribute("aria-live") == "polite"
    screenshot("run-in-progress")
    page.set_viewport_size(PHONE)
    assert not page.evaluate(
        "document.scrollingElement.scrollWidth > document.scrollingElement.clientWidth"
    )
    assert page.locator("#run-progress progress").bounding_box()["width"] > 250
    page.set_viewport_size(DESKTOP)

    # The finished view: the same page without the bar.
    page.wait_for_selector(
        "section.tiles:not(:has(#run-progress)) #run-status:text-is('completed')",
        timeout=60000,
    )
    run = Run.objects.get()
    assert (run.status, run.total_cases, run.progress_done) == (
        "completed",
        SCENARIOS,
        SCENARIOS,
    )
    assert model.answered == SCENARIOS
    assert f"{run.passed_cases} of {SCENARIOS} scenarios passed" in page.inner_text(
        "section.tiles"
    )
    scenario_rows = page.locator("table:has(th:text-is('Stimulus')) tbody tr")
    assert scenario_rows.count() == SCENARIOS

    # What the progress page showed, in order.
    assert reports, "the progress page was never seen"
    values = [int(r["value"]) for r in reports]
    assert values == sorted(values), f"the bar went back: {values}"
    for r in reports:
        done = int(r["value"])
        assert int(r["max"]) == SCENARIOS
        assert r["text"] == f"{done} of {SCENARIOS} scenarios done"
        assert r["labelledby"] == "run-progress-text"
        assert done <= r["answered"], r
        assert r["status"] in ("queued", "running", "completed"), r
        if r["status"] == "queued":
            assert done == 0, r
    moving = {int(r["value"]) for r in reports if r["status"] == "running"}
    assert len({v for v in moving if 0 < v < SCENARIOS}) >= 2, values
    last = reports[-1]
    assert (last["status"], int(last["value"])) == ("completed", SCENARIOS)
    # Nothing moved while the counts changed (per viewport width).
    for width in {r["viewport"] for r in reports}:
        places = {
            (tuple(r["bar"]), tuple(r["tile"]))
            for r in reports
            if r["viewport"] == width
        }
        assert len(places) == 1, (width, places)
    print(f"bar values seen: {values}")
    assert page.js_errors == []
