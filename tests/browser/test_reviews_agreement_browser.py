"""The agreement pages in a real Chromium: the list of score configs with
their figures, one config's confusion tables, and a disagreement that opens
the scenario's page; both pages fit a phone's width. Screenshots at 1280 and
390 px go to the test artifacts (``browser/reviews-agreement*.png``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from reviews.models import Score, ScoreConfig, Subject
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import PHONE
from tests.evals.harness_support import run_suite

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def scored_run(suites: Any) -> Any:
    """A smoke run scored by three reviewers on two configs; its first two
    cases are made to fail so people and the case verdict disagree."""
    run = run_suite(suites / "smoke.jsonl")
    cases = sorted(run.case_results.values_list("case_id", flat=True))
    run.case_results.filter(case_id__in=cases[:2]).update(passed=False)
    helpful = ScoreConfig.objects.create(
        name="helpful", kind="boolean", description="Would this answer help a player?"
    )
    quality = ScoreConfig.objects.create(
        name="quality", kind="numeric", min_value=1, max_value=5
    )
    people = [get_user_model().objects.create(username=n) for n in ("ann", "ben", "cy")]
    for i, case_id in enumerate(cases):
        for j, person in enumerate(people):
            common = {
                "kind": Subject.SCENARIO_RESULT,
                "ref": f"{run.run_id}/{case_id}",
                "run_id": run.run_id,
                "case_id": case_id,
                "source": Score.Source.REVIEW,
                "author": person,
            }
            Score.objects.create(
                config=helpful, value_number=float((i + j) % 3 != 0), **common
            )
            Score.objects.create(
                config=quality, value_number=float(1 + (i + j) % 5), **common
            )
    return run


def test_agreement_pages_show_figures_tables_and_lead_to_a_scenario(
    page: Any, live_server: Any, staff: Any, suites: Any, log_in: Any, screenshot: Any
) -> None:
    run = scored_run(suites)
    log_in("staff", "pw-staff")

    page.goto(f"{live_server.url}/reviews/agreement/")
    rows = page.locator("#agreement tbody tr")
    assert rows.count() == 2
    quality = page.locator('tr[data-config="quality"]')
    assert quality.locator("td.givers").inner_text() == "3"
    assert quality.locator("td.alpha-interval .figure").is_visible()
    screenshot("reviews-agreement")
    page.set_viewport_size(PHONE)
    assert not page_overflows(page)
    page.set_viewport_size({"width": 1280, "height": 900})

    page.locator('tr[data-config="helpful"] a').first.click()
    page.wait_for_url(f"{live_server.url}/reviews/agreement/helpful/v1/")
    assert page.locator("#check-case table.confusion").is_visible()
    assert page.locator("#check-case td.disagree").count() >= 1
    screenshot("reviews-agreement-detail")
    page.set_viewport_size(PHONE)
    assert not page_overflows(page)
    page.set_viewport_size({"width": 1280, "height": 900})

    link = page.locator("#check-case ul.disagreements a").first
    case_id = link.inner_text()
    link.click()
    page.wait_for_url(f"{live_server.url}/evals/runs/{run.run_id}/scenarios/{case_id}/")
    assert page.js_errors == []
