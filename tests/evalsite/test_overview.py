"""The overview: latest run per benchmark with its verdict, open regressions
against each benchmark's baseline, invalid uploads, stream health."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from evals.core.baselines import snapshot_from_runs
from evals.models import BaselineSnapshot, Benchmark, InvalidUpload, Run
from evals.services.compare import run_summary_of
from evals.services.standings import baseline_standings
from stream.models import AgencyCounters, Thought
from stream.services.agents import agent_create
from stream.services.stream_health import stream_health

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def make_run(
    benchmark_id: str,
    run_id: str,
    *,
    minutes: int,
    passed: int = 10,
    metrics: dict[str, float] | None = None,
    kind: str = Benchmark.Kind.PACK,
    verdict: bool | None = None,
) -> Run:
    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id=benchmark_id, defaults={"kind": kind, "title": benchmark_id}
    )
    when = T0 + timedelta(minutes=minutes)
    return Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status=Run.Status.COMPLETED,
        source=Run.Source.API,
        started_at=when,
        completed_at=when + timedelta(minutes=1),
        total_cases=10,
        passed_cases=passed,
        failed_cases=10 - passed,
        metrics=metrics or {},
        verdict_passed=verdict,
    )


def snapshot(snapshot_id: str, runs: list[Run], *, minutes: int = 0) -> None:
    document = snapshot_from_runs(
        [run_summary_of(run, None) for run in runs],
        snapshot_id=snapshot_id,
        created_at="2026-03-01T00:00:00Z",
        source_root_dir="evalsite database",
    )
    BaselineSnapshot.objects.create(
        snapshot_id=snapshot_id,
        created_at=T0 + timedelta(minutes=minutes),
        document=document.to_wire(),
    )


@pytest.fixture
def regressed() -> None:
    base = make_run("alpha", "a1", minutes=0, metrics={"trustViolationRate": 0.0})
    make_run("beta", "b1", minutes=0)
    snapshot("required-main", [base, Run.objects.get(run_id="b1")])
    make_run("alpha", "a2", minutes=10, passed=8, metrics={"trustViolationRate": 0.1})
    make_run("beta", "b2", minutes=10)


def test_standings_carry_the_gates_lines_per_benchmark(regressed: None) -> None:
    standings = baseline_standings()

    assert sorted(standings) == ["alpha", "beta"]
    assert standings["alpha"].regressions == (
        "alpha pass rate regressed (1 -> 0.8)",
        "alpha trustViolationRate 0 -> 0.1",
    )
    assert standings["alpha"].candidate_run_id == "a2"
    assert standings["beta"].regressions == ()
    assert standings["beta"].regressed is False


def test_a_benchmark_with_no_completed_run_left_regresses() -> None:
    gone = make_run("gone", "g1", minutes=0)
    snapshot("required-main", [gone])
    Run.objects.filter(pk=gone.pk).update(status=Run.Status.FAILED)

    standing = baseline_standings()["gone"]

    assert standing.regressions == (
        "candidate is missing latest completed benchmark run for gone",
    )
    assert standing.candidate_run_id is None


def test_required_main_wins_over_newer_snapshots() -> None:
    old = make_run("alpha", "a1", minutes=0, passed=5)
    make_run("alpha", "a2", minutes=10, passed=9)
    snapshot("required-main", [old], minutes=0)
    snapshot("nightly", [Run.objects.get(run_id="a2")], minutes=60)

    standing = baseline_standings()["alpha"]

    assert standing.snapshot_id == "required-main"
    assert standing.improvements == ("alpha pass rate improved (0.5 -> 0.9)",)


def test_overview_lists_regressions_in_the_gates_words(
    owner_client: Any, regressed: None
) -> None:
    html = owner_client.get("/").content.decode()

    assert "<h1>Overview</h1>" in html
    assert '<p class="big bad">1</p>' in html
    assert "of 2 benchmarks with a baseline regresses against it" in html
    section = html.split('id="regressions-heading"')[1].split("</section>")[0]
    assert '<li class="bad">alpha pass rate regressed (1 -&gt; 0.8)</li>' in section
    assert '<li class="bad">alpha trustViolationRate 0 -&gt; 0.1</li>' in section
    assert "beta" not in section
    assert 'href="/evals/compare?snapshot=required-main"' in section
    assert 'href="/evals/compare?base=a1&amp;candidate=a2"' in section


def test_latest_run_cards_show_verdicts_and_link_on(owner_client: Any) -> None:
    make_run("idle", "i1", minutes=0, kind=Benchmark.Kind.SUITE, verdict=True)
    make_run("idle", "i2", minutes=5, kind=Benchmark.Kind.SUITE, verdict=False)
    Run.objects.filter(run_id="i2").update(failed_properties=["no_compulsion"])
    make_run("pack", "p1", minutes=1, passed=7)

    html = owner_client.get("/").content.decode()

    assert '<a href="/evals/suites/idle/">idle</a>' in html
    assert 'href="/evals/runs/i2/"' in html
    assert 'href="/evals/runs/i1/"' not in html
    assert '<span class="fail">FAIL</span> · no_compulsion' in html
    assert "7/10 cases passed" in html
    assert 'href="/evals/trends?benchmark=pack"' in html
    assert html.index("/evals/runs/i2/") < html.index("/evals/runs/p1/")


def test_latest_runs_filter_and_paginate(owner_client: Any) -> None:
    for index in range(15):
        make_run(f"pack-{index:02d}", f"p{index:02d}", minutes=index)
    make_run("suite-x", "s1", minutes=0, kind=Benchmark.Kind.SUITE)

    suites = owner_client.get("/?kind=suite").content.decode()
    page_two = owner_client.get("/?page=2").content.decode()
    search = owner_client.get("/?q=pack-03").content.decode()

    assert "suite-x" in suites
    assert "pack-01" not in suites
    assert "Page 2 of 2 (16 benchmarks)" in page_two
    assert 'href="/evals/runs/p00/"' in page_two
    assert 'href="/evals/runs/p14/"' not in page_two
    assert 'href="/evals/runs/p03/"' in search
    assert 'href="/evals/runs/p04/"' not in search


def test_invalid_uploads_waiting_for_review(
    owner_client: Any, staff_client: Any
) -> None:
    for name in ("a.json", "b.zip", "c.json", "d.json"):
        InvalidUpload.objects.create(
            kind=InvalidUpload.Kind.MANIFEST, filename=name, raw="{}", errors=[]
        )
    InvalidUpload.objects.create(
        kind=InvalidUpload.Kind.MANIFEST,
        filename="done.json",
        raw="{}",
        errors=[],
        status=InvalidUpload.Status.REJECTED,
    )

    html = staff_client.get("/").content.decode()
    tile = html.split("<h2>Invalid uploads</h2>")[1].split("</a>")[0]
    member_html = owner_client.get("/").content.decode()
    member_tile = member_html.split("<h2>Invalid uploads</h2>")[1].split("</a>")[0]

    assert '<p class="big bad">4</p>' in tile
    assert "d.json, c.json, b.zip, …" in tile
    assert "done.json" not in tile
    assert '<p class="big bad">4</p>' in member_tile
    assert "<p>waiting for review</p>" in member_tile
    assert ".json" not in member_tile


def test_stream_health_counts_only_the_users_active_agents(
    owner: Any, member: Any, stranger: Any
) -> None:
    now = timezone.now()
    mine = agent_create(name="mine", owner=owner).agent
    theirs = agent_create(name="theirs", owner=stranger).agent
    for agent, made in ((mine, 12), (theirs, 5)):
        for index in range(made):
            Thought.objects.create(
                agent=agent,
                type="reflection",
                content=f"t{index}",
                content_hash=f"{index:016d}",
                eligibility_reason="no_goal",
                source="agent",
                created_at=now - timedelta(minutes=index),
            )
    Thought.objects.filter(agent=mine, content="t0").update(
        convert_eligible=True, grounding_passed=True, goal_key="gather:oak_log"
    )
    Thought.objects.filter(agent=mine, content="t1").update(
        processed=True, processed_at=now
    )
    AgencyCounters.objects.update_or_create(
        agent=mine, defaults={"llm_calls": 7, "goal_tags": 2, "started_at": now}
    )

    from stream.selectors import agent_list_visible

    health = stream_health(
        agents=agent_list_visible(user=owner).filter(is_active=True), now=now
    )

    # t0..t10 are inside the 10-minute window (its start included); t11 is
    # older, and the stranger's thoughts are not counted.
    assert health.thoughts_in_window == 11
    assert health.thoughts_per_min == 1.1
    assert health.actionable == 1
    assert health.unprocessed == 11
    assert health.counters["llmCalls"] == 7
    assert health.counters["goalTags"] == 2
    assert health.agents == 1


def test_stream_tile_links_to_the_stream(owner_client: Any) -> None:
    html = owner_client.get("/").content.decode()

    assert '<a class="tile" href="/stream/">' in html
    assert "thoughts/min" in html


def test_overview_query_count_does_not_grow_with_benchmarks(
    owner_client: Any,
) -> None:
    def count(prefix: str, benchmarks: int) -> int:
        runs = [
            make_run(f"{prefix}-{i}", f"{prefix}-r{i}", minutes=i)
            for i in range(benchmarks)
        ]
        snapshot(f"{prefix}-snap", runs)
        owner_client.get("/")
        with CaptureQueriesContext(connection) as queries:
            owner_client.get("/")
        return len(queries)

    assert count("few", 2) == count("many", 12)
