"""PR keepalive pages in Chromium: the overview with its chart, a PR's
timeline and the dry-run form, at 1280 and 390 px, with no page errors."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_overview_pull_timeline_and_explain_form(
    page: Any, live_server: Any, owner: Any, screenshot: Any, log_in: Any
) -> None:
    from prkeepalive.demo import load_demo

    load_demo(owner=owner)
    log_in("alice", "pw-alice")
    page.click("nav >> text=PR keepalive")
    page.wait_for_selector("#reason-histogram .main-svg")
    assert "demo-org/widgets" in page.inner_text("main")
    screenshot("prkeepalive-index")
    page.click("a[href$='/pull/15/']")
    page.wait_for_url(f"{live_server.url}/prkeepalive/demo-org/widgets/pull/15/")
    assert (
        "1 orchestrator run(s) are queued or running and the cap is 1"
        in page.inner_text(".note")
    )
    # The form starts from the facts the last decision read: explaining them
    # prints the recorded line; with a free run slot the round would run.
    page.click("form.explain button[type=submit]")
    page.wait_for_selector("section[aria-label=Explanation]")
    assert "DISPATCH: ok=false path=gate reason=cap-reached pr=#15" in (
        page.inner_text("section[aria-label=Explanation]")
    )
    state = page.input_value("#x-state").replace('"activeRuns": 1', '"activeRuns": 0')
    page.fill("#x-state", state)
    page.click("form.explain button[type=submit]")
    page.wait_for_selector("section[aria-label=Explanation]")
    assert "DISPATCH: ok=true path=gate reason=ok pr=#15" in page.inner_text(
        "section[aria-label=Explanation]"
    )
    screenshot("prkeepalive-pull")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.js_errors == []


def test_failed_deliveries_show_on_the_pull_page_index_and_overview(
    page: Any, live_server: Any, owner: Any, screenshot: Any, log_in: Any
) -> None:
    from prkeepalive.demo import load_demo
    from prkeepalive.models import Delivery, Repository
    from prkeepalive.services.dispatch import delivery_will_retry

    load_demo(owner=owner)
    repo = Repository.objects.get(full_name="demo-org/widgets")
    error = (
        "GitHubError: GET /repos/demo-org/widgets/pulls/12: connection refused "
        "(api.github.com)"
    )
    Delivery.objects.create(
        guid="failed-1",
        event="issue_comment",
        action="created",
        repository=repo,
        pull_number=12,
        status=Delivery.Status.FAILED,
        error=error,
        attempts=4,
    )
    retrying = Delivery.objects.create(
        guid="retrying-1",
        event="workflow_run",
        action="completed",
        repository=repo,
        pull_number=15,
        status=Delivery.Status.FAILED,
        error=error,
        attempts=1,
    )
    delivery_will_retry(delivery_pk=retrying.pk, countdown_s=10)
    log_in("alice", "pw-alice")
    assert "1 retrying · 1 failed" in page.inner_text("main")
    screenshot("prkeepalive-overview-failures")
    page.click("nav >> text=PR keepalive")
    assert "2 deliveries could not be processed" in page.inner_text("main")
    page.click("a[href$='/pull/12/'] >> nth=0")
    page.wait_for_url(f"{live_server.url}/prkeepalive/demo-org/widgets/pull/12/")
    why = page.inner_text(".note")
    assert "could not be processed after 4 attempts" in why
    assert "connection refused" in why and "The decision before it" in why
    screenshot("prkeepalive-pull-failed")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.js_errors == []


def test_the_pull_request_table_fits_a_phone(
    page: Any, live_server: Any, owner: Any, screenshot: Any, log_in: Any
) -> None:
    """At 390 px every column of a repository's pull requests is read on
    screen (one card per row, each value under its label), none scrolled
    off to the right of the table."""
    from prkeepalive.demo import load_demo

    load_demo(owner=owner)
    log_in("alice", "pw-alice")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/prkeepalive/")
    cells = page.evaluate(
        """() => [...document.querySelectorAll("section table.stack td")].map(
             (td) => [td.getAttribute("data-label"), td.getBoundingClientRect().right])"""
    )
    assert cells, "the demo repository lists its pull requests"
    assert {label for label, _ in cells} >= {"Keepalive", "Last decision"}
    assert all(right <= 390 for _, right in cells), cells
    screenshot("prkeepalive-index-phone")
    assert page.js_errors == []
