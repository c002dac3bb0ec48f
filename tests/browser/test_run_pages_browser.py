"""A run of 120 cases in a real Chromium at phone width: its page shows the
counts and the failed cases first, and "Next scenarios" / "Previous scenarios"
walk the table a page at a time; the run list's "Older" link too. Nothing
overflows the screen and no script fails."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from evals.models import Benchmark, CaseResult, Run
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def seeded_runs() -> Run:
    suite = Benchmark.objects.create(
        benchmark_id="paged", kind=Benchmark.Kind.SUITE, title="paged"
    )
    runs = [
        Run.objects.create(
            run_id=f"run-{i:02d}",
            benchmark=suite,
            status=Run.Status.COMPLETED,
            source=Run.Source.HARNESS,
            started_at=T0 + timedelta(minutes=i),
            completed_at=T0 + timedelta(minutes=i, seconds=30),
        )
        for i in range(30)
    ]
    big = runs[-1]
    CaseResult.objects.bulk_create(
        CaseResult(run=big, case_id=f"case-{i:03d}", passed=i % 10 != 0, details={})
        for i in range(120)
    )
    Run.objects.filter(pk=big.pk).update(total_cases=120, passed_cases=108)
    return big


def shown_cases(page: Any) -> list[str]:
    return page.locator(
        "#scenario-table tbody tr td:first-child code"
    ).all_inner_texts()


def test_a_long_run_pages_its_cases_failed_first_at_phone_width(
    page: Any, live_server: Any, owner: Any, log_in: Any
) -> None:
    big = seeded_runs()
    log_in("alice", "pw-alice")
    page.set_viewport_size(PHONE)

    page.goto(f"{live_server.url}/evals/runs/{big.run_id}/")
    first = shown_cases(page)
    assert "120 scenario results" in page.inner_text("#scenario-counts")
    assert "12 failed" in page.inner_text("#scenario-counts")
    assert first[:12] == [f"case-{i:03d}" for i in range(0, 120, 10)]
    assert len(first) == 50
    assert not page_overflows(page)

    page.click("text=Next scenarios")
    second = shown_cases(page)
    assert len(second) == 50
    assert not set(first) & set(second)
    page.click("text=Previous scenarios")
    assert shown_cases(page) == first

    page.goto(f"{live_server.url}/evals/runs/")
    assert page.locator("text=Newer").count() == 0
    page.click("text=Older")
    assert page.locator("tbody tr").count() == 5
    assert not page_overflows(page)
    assert page.js_errors == []
