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
    page.select_option("#x-event", "issue_comment")
    page.click("form.explain button[type=submit]")
    page.wait_for_selector("section[aria-label=Explanation]")
    assert "DISPATCH: ok=true path=comment reason=ok pr=#15" in page.inner_text(
        "section[aria-label=Explanation]"
    )
    screenshot("prkeepalive-pull")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.js_errors == []
