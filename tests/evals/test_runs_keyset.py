"""The run list API pages by keyset (``after`` = the ``next`` of the page
before): every run once, newest first, ties on the start time broken by
pk, the same order as ``offset``; a value no page gave is a 400 naming
``after``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.models import Benchmark, Run

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def session_client(owner: Any) -> APIClient:
    client = APIClient()
    client.force_login(owner)
    return client


def harness_runs(count: int) -> list[str]:
    suite = Benchmark.objects.create(
        benchmark_id="suite", kind=Benchmark.Kind.SUITE, title="suite"
    )
    for index in range(count):
        Run.objects.create(
            run_id=f"run-{index}",
            benchmark=suite,
            status=Run.Status.COMPLETED,
            source=Run.Source.HARNESS,
            # Pairs of runs share a start time: the pk breaks the tie.
            started_at=T0 + timedelta(minutes=index // 2),
        )
    return list(
        Run.objects.order_by("-started_at", "-pk").values_list("run_id", flat=True)
    )


def test_following_next_lists_every_run_once_in_the_offset_order(
    session_client: APIClient,
) -> None:
    newest_first = harness_runs(7)

    seen: list[str] = []
    query = "limit=3"
    pages = 0
    while True:
        body = session_client.get(f"/api/evals/runs?{query}").json()
        pages += 1
        assert body["count"] == 7
        seen.extend(run["runId"] for run in body["results"])
        if body["next"] is None:
            break
        query = f"limit=3&after={body['next']}"

    assert seen == newest_first
    assert pages == 3
    by_offset = session_client.get("/api/evals/runs?limit=3&offset=3").json()
    assert [run["runId"] for run in by_offset["results"]] == newest_first[3:6]


@pytest.mark.parametrize("after", ["zz", "W10", "WyJub3QgYSB0aW1lIiwgMV0"])
def test_an_after_no_page_gave_is_a_400_naming_it(
    session_client: APIClient, after: str
) -> None:
    harness_runs(2)

    response = session_client.get(f"/api/evals/runs?after={after}&limit=0")

    assert response.status_code == 400
    fields = {f["path"]: f["message"] for f in response.json()["error"]["fields"]}
    assert fields == {
        "?after": "after is not the next of a page of this list.",
        "?limit": "limit must be between 1 and 200.",
    }
