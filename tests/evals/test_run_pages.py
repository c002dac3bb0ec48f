"""Keyset pages of the long lists: one run's cases (failed first, then by
case id, on the scenario page and the posted run's page), a benchmark's
runs, the shadow records, and the ``after``/``next`` of their APIs.

Following the links visits every row once, in the list's order; going back
returns the same page; a page read twice does not shift when rows arrive;
a cursor no page wrote shows the first page (pages) or is a 400 naming
``after`` (API); the query count of a run's page does not grow with its
cases."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from evals.examples import example_shadow_record
from evals.models import Benchmark, CaseResult, Run, ShadowRecord
from evals.selectors.keyset_pages import case_counts, case_page, newest_first_page

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def make_run(
    run_id: str,
    outcomes: dict[str, bool],
    *,
    kind: str = Benchmark.Kind.PACK,
    benchmark_id: str = "pack",
    minutes: int = 0,
) -> Run:
    """A completed run with these case results (harness runs of a suite
    get the scenario page, others the posted run's page)."""
    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id=benchmark_id, defaults={"kind": kind, "title": benchmark_id}
    )
    passed = sum(outcomes.values())
    run = Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status=Run.Status.COMPLETED,
        source=Run.Source.HARNESS if kind == Benchmark.Kind.SUITE else Run.Source.API,
        started_at=T0 + timedelta(minutes=minutes),
        completed_at=T0 + timedelta(minutes=minutes, seconds=30),
        total_cases=len(outcomes),
        passed_cases=passed,
        failed_cases=len(outcomes) - passed,
    )
    CaseResult.objects.bulk_create(
        CaseResult(run=run, case_id=case_id, passed=ok, details={})
        for case_id, ok in outcomes.items()
    )
    return run


def outcomes(count: int, *, failing_every: int = 7) -> dict[str, bool]:
    return {f"case-{i:04d}": i % failing_every != 0 for i in range(count)}


def worst_first(found: dict[str, bool]) -> list[str]:
    return sorted(found, key=lambda case_id: (found[case_id], case_id))


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'href="(\?[^"]*)" rel="{rel}"', html)
    return unescape(found[1]) if found else None


def shown_cases(html: str, run: Run) -> list[str]:
    scenario = re.findall(rf'href="/evals/runs/{run.run_id}/scenarios/([^/"]+)/"', html)
    posted = re.findall(r"<tr><td><code>([^<]+)</code></td>", html)
    return scenario or posted


def follow(client: Client, url: str, run: Run) -> tuple[list[list[str]], list[str]]:
    """Every page from ``url`` on by its "next" links, and the pages back."""
    pages: list[list[str]] = []
    html = client.get(url).content.decode()
    pages.append(shown_cases(html, run))
    while (following := link(html, "next")) is not None:
        html = client.get(url.split("?")[0] + following).content.decode()
        pages.append(shown_cases(html, run))
    back: list[str] = []
    while (previous := link(html, "prev")) is not None:
        html = client.get(url.split("?")[0] + previous).content.decode()
        back = shown_cases(html, run) + back
    return pages, back


# --- one run's cases ---------------------------------------------------------------


@pytest.mark.parametrize("kind", [Benchmark.Kind.SUITE, Benchmark.Kind.PACK])
def test_a_runs_cases_come_failed_first_fifty_a_page_each_once(
    owner_client: Client, kind: str
) -> None:
    found = outcomes(130)
    run = make_run("big", found, kind=kind)

    pages, back = follow(owner_client, f"/evals/runs/{run.run_id}/", run)

    assert [len(page) for page in pages] == [50, 50, 30]
    assert [case for page in pages for case in page] == worst_first(found)
    assert back == [case for page in pages[:-1] for case in page]


@pytest.mark.parametrize("kind", [Benchmark.Kind.SUITE, Benchmark.Kind.PACK])
def test_a_runs_page_gives_the_exact_counts_from_its_rows(
    owner_client: Client, kind: str
) -> None:
    run = make_run("big", outcomes(130), kind=kind)
    # The run's own counters say otherwise: the page counts the rows.
    Run.objects.filter(pk=run.pk).update(passed_cases=1, total_cases=2)

    html = owner_client.get(f"/evals/runs/{run.run_id}/").content.decode()

    assert (
        '130 case results: <span class="pass">111 passed</span>, '
        '<span class="fail">19 failed</span>.'
    ) in html.replace("scenario results", "case results")
    assert "Failed first, then by" in html


def test_a_small_run_has_no_page_links_and_says_none_failed(
    owner_client: Client,
) -> None:
    run = make_run("small", {"a": True, "b": True})

    html = owner_client.get(f"/evals/runs/{run.run_id}/").content.decode()

    assert '2 case results: <span class="pass">2 passed</span>, none failed.' in html
    assert 'rel="next"' not in html
    assert "Failed first" not in html


@pytest.mark.parametrize("kind", [Benchmark.Kind.SUITE, Benchmark.Kind.PACK])
def test_a_runs_page_reads_as_many_queries_for_ten_cases_as_for_a_thousand(
    owner_client: Client, kind: str
) -> None:
    small = make_run("small", outcomes(10), kind=kind, benchmark_id="one")
    large = make_run("large", outcomes(1000), kind=kind, benchmark_id="two")
    owner_client.get(f"/evals/runs/{small.run_id}/")

    counted = []
    for run in (small, large):
        with CaptureQueriesContext(connection) as queries:
            response = owner_client.get(f"/evals/runs/{run.run_id}/")
        assert response.status_code == 200
        counted.append(len(queries))

    # A page reads its cases in one query, or two where it crosses from the
    # failed cases to the passed ones (the small run's page does).
    assert counted[1] <= counted[0]


@pytest.mark.parametrize(
    "query", ["after=nope", "before=bm9wZQ", "after=" + "A" * 3000, "after=WzEsMl0"]
)
def test_a_broken_case_cursor_shows_the_first_cases(
    owner_client: Client, query: str
) -> None:
    found = outcomes(60)
    run = make_run("big", found)

    response = owner_client.get(f"/evals/runs/{run.run_id}/?{query}")

    assert response.status_code == 200
    assert shown_cases(response.content.decode(), run) == worst_first(found)[:50]


def test_case_pages_cross_from_failed_to_passed_both_ways() -> None:
    found = {f"c{i:02d}": i >= 3 for i in range(10)}  # c00..c02 fail
    run = make_run("r", found)

    first = case_page(run, size=4)
    second = case_page(run, size=4, after=first.next_after)
    third = case_page(run, size=4, after=second.next_after)
    back = case_page(run, size=4, before=third.previous_before)
    top = case_page(run, size=4, before=back.previous_before)

    assert [c.case_id for c in first.rows] == ["c00", "c01", "c02", "c03"]
    assert [c.case_id for c in second.rows] == ["c04", "c05", "c06", "c07"]
    assert [c.case_id for c in third.rows] == ["c08", "c09"]
    assert third.next_after == ""
    assert [c.case_id for c in back.rows] == ["c04", "c05", "c06", "c07"]
    # Back at the top: the first page, full, with nothing above it.
    assert [c.case_id for c in top.rows] == ["c00", "c01", "c02", "c03"]
    assert top.is_first
    assert case_counts(run).failed == 3
    assert case_counts(run).passed == 7


def test_a_case_page_of_a_run_with_only_passes_or_only_failures() -> None:
    passes = make_run("p", {"a": True, "b": True, "c": True}, benchmark_id="x")
    failures = make_run("f", {"a": False, "b": False, "c": False}, benchmark_id="y")

    for run in (passes, failures):
        first = case_page(run, size=2)
        rest = case_page(run, size=2, after=first.next_after)
        assert [c.case_id for c in first.rows + rest.rows] == ["a", "b", "c"]
        assert rest.next_after == ""


# --- newest first: runs of a benchmark, shadow records -----------------------------


def runs_table(html: str) -> list[str]:
    table = html[html.index('<h2 id="runs">') :]
    return re.findall(r'href="/evals/runs/(run-[^/"]+)/"><code>', table)


def test_a_benchmarks_runs_page_newest_first_and_keep_their_place(
    owner_client: Client,
) -> None:
    for i in range(27):
        make_run(f"run-{i:02d}", {"a": True}, minutes=i)

    html = owner_client.get("/benchmarks/pack/").content.decode()
    older = link(html, "next")
    assert older is not None
    make_run("run-late", {"a": True}, minutes=100)
    second = owner_client.get(f"/benchmarks/pack/{older}").content.decode()

    shown = runs_table(html)
    assert shown[:2] == ["run-26", "run-25"]
    assert len(shown) == 25
    later = runs_table(second)
    assert later == ["run-01", "run-00"]
    assert link(second, "prev") is not None


def test_runs_sharing_a_start_time_are_each_listed_once() -> None:
    benchmark = Benchmark.objects.create(benchmark_id="b", kind="pack", title="b")
    for i in range(7):
        Run.objects.create(run_id=f"r{i}", benchmark=benchmark, started_at=T0)
    runs = Run.objects.all()

    seen: list[str] = []
    after = ""
    while True:
        page = newest_first_page(runs, time_field="started_at", size=3, after=after)
        seen.extend(run.run_id for run in page.rows)
        if not page.next_after:
            break
        after = page.next_after

    assert seen == [f"r{i}" for i in reversed(range(7))]


def shadow_records(count: int) -> list[str]:
    ShadowRecord.objects.bulk_create(
        ShadowRecord(
            trace_id=f"trace-{i:03d}",
            recorded_at=T0 + timedelta(seconds=i),
            day=T0.date(),
            document=example_shadow_record(f"trace-{i:03d}"),
        )
        for i in range(count)
    )
    return [f"trace-{i:03d}" for i in reversed(range(count))]


def test_the_shadow_list_pages_newest_first_keeping_its_filters(
    owner_client: Client,
) -> None:
    newest_first = shadow_records(60)

    html = owner_client.get("/shadow/?day=2026-03-01").content.decode()
    older = link(html, "next")
    assert older is not None
    assert older.startswith("?day=2026-03-01&after=")
    second = owner_client.get(f"/shadow/{older}").content.decode()

    assert re.findall(r'href="/shadow/(trace-\d+)/"', html) == newest_first[:50]
    assert re.findall(r'href="/shadow/(trace-\d+)/"', second) == newest_first[50:]


# --- the APIs' after and next ------------------------------------------------------


@pytest.fixture
def api(owner: Any) -> APIClient:
    client = APIClient()
    client.force_login(owner)
    return client


def walk(api: APIClient, path: str, key: str) -> tuple[list[str], set[int]]:
    seen: list[str] = []
    counts: set[int] = set()
    query = "limit=4"
    while True:
        body = api.get(f"{path}?{query}").json()
        counts.add(body["count"])
        seen.extend(item[key] for item in body["results"])
        if body["next"] is None:
            return seen, counts
        query = f"limit=4&after={body['next']}"


def test_the_benchmark_runs_api_follows_next_to_every_run_once(api: APIClient) -> None:
    for i in range(10):
        make_run(f"run-{i}", {"a": True}, minutes=i // 2)
    newest_first = list(
        Run.objects.order_by("-started_at", "-pk").values_list("run_id", flat=True)
    )

    seen, counts = walk(api, "/api/benchmarks/runs", "runId")

    assert seen == newest_first
    assert counts == {10}


def test_the_shadow_api_follows_next_to_every_record_once(api: APIClient) -> None:
    newest_first = shadow_records(9)

    seen, counts = walk(api, "/api/benchmarks/shadow", "traceId")

    assert seen == newest_first
    assert counts == {9}


@pytest.mark.parametrize("path", ["/api/benchmarks/runs", "/api/benchmarks/shadow"])
def test_an_after_no_page_gave_is_a_400_naming_it_with_the_other_problems(
    api: APIClient, path: str
) -> None:
    response = api.get(f"{path}?after=nope&limit=0")

    assert response.status_code == 400
    fields = {f["path"]: f["message"] for f in response.json()["error"]["fields"]}
    assert fields == {
        "?after": "after is not the next of a page of this list.",
        "?limit": "limit must be between 1 and 200.",
    }
