"""The page of one run of 10,000 scenarios, rendered in-process.

    .venv/bin/python bench/run_page.py            # embedded SQLite (a temp file)
    .venv/bin/python bench/run_page.py --quick    # 1,000 scenarios
    DATABASE_URL=postgres://... .venv/bin/python bench/run_page.py

Stores one harness run whose every case carries a realistic scenario
artifact (rendered frame, outputs, reasons; one in seven failed), then
renders ``/evals/runs/<run>/`` through the Django test client (middleware,
view, template, no network): its first page of cases, failed first, and a
page deep in the passed ones, each the median of warm renders, with the
number of queries. The run stores its figures with their intervals, as a
harness run does when it finishes (the time to compute them from every
case, which a run finished before they were stored costs on each view, is
printed apart). Beside it, "before": the page as it was built before it
was paged (every case read with its artifact, put in suite order and
rendered in one table). Prints both; exits 1 when the paged page misses its
target (under 1 s warm) or its query count grows with the run.
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_env import scenario_artifact, setup_django  # noqa: E402

setup_django("evalsite_bench_run_page")

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.template.loader import render_to_string  # noqa: E402
from django.test import Client, RequestFactory  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

SCENARIOS = 10_000
QUICK_SCENARIOS = 1_000
SMALL = 100
REPEATS = 5
TARGET_S = 1.0
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def make_run(run_id: str, scenarios: int) -> str:
    from evals.models import Benchmark, CaseResult, Run

    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id="bench-suite",
        defaults={"kind": Benchmark.Kind.SUITE, "title": "bench"},
    )
    outcomes = [(index, index % 7 != 0) for index in range(scenarios)]
    passed = sum(ok for _, ok in outcomes)
    run = Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status=Run.Status.COMPLETED,
        source=Run.Source.HARNESS,
        started_at=T0,
        completed_at=T0 + timedelta(minutes=20),
        total_cases=scenarios,
        passed_cases=passed,
        failed_cases=scenarios - passed,
        metrics={"action_rate": 0.3, "grounding_pass_rate": 1.0},
        verdict_passed=True,
        config={"mode": "thought_only", "profile": "balanced"},
    )
    CaseResult.objects.bulk_create(
        (
            CaseResult(
                run=run,
                case_id=f"bench:scenario-{index:05d}",
                passed=ok,
                latency_ms=400.0 + index % 200,
                stimulus_kind="nightfall",
                affordance="allowed",
                details=scenario_artifact(
                    run_id, f"bench:scenario-{index:05d}", index, ok
                ),
            )
            for index, ok in outcomes
        ),
        batch_size=2000,
    )
    return run_id


def store_uncertainty(run_id: str) -> float:
    """Store the run's figures with their intervals, as a harness run does
    when it finishes; the seconds it took to compute them from every case
    (what the page does on each view of a run finished before they were
    stored)."""
    from evals.models import Run
    from evals.selectors.runs import run_get
    from evals.services.harness.finish import stored_run_uncertainty

    run = run_get(run_id=run_id)
    started = time.perf_counter()
    figures = stored_run_uncertainty(run)
    took = time.perf_counter() - started
    Run.objects.filter(pk=run.pk).update(uncertainty=figures)
    return took


def measure(client: Client, url: str) -> tuple[float, int]:
    """(median s over REPEATS warm renders, queries of one render)."""
    client.get(url)  # warm: session, templates, statement caches
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return statistics.median(times), len(queries)


def before(user: object, run_id: str) -> float:
    """The page as it was built before paging: every case with its
    artifact, in suite order, in one table (median of warm renders)."""
    from evals.core.scenario_artifact import ScenarioArtifact, is_scenario_artifact
    from evals.selectors.runs import run_cases, run_get

    request = RequestFactory().get(f"/evals/runs/{run_id}/")
    request.user = user  # type: ignore[attr-defined]

    def render() -> None:
        run = run_get(run_id=run_id)
        cases = run_cases(run)
        rows = [
            (
                case,
                ScenarioArtifact.from_wire(case.details)
                if is_scenario_artifact(case.details)
                else None,
            )
            for case in cases
        ]
        render_to_string(
            "evals/run_detail.html",
            {
                "run": run,
                "cases": cases,
                "rows": rows,
                "columns": {"stimulus": True, "frame": True, "latency": True},
            },
            request,
        )

    render()
    times = []
    for _ in range(max(2, REPEATS // 2)):
        started = time.perf_counter()
        render()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    scenarios = QUICK_SCENARIOS if quick else SCENARIOS
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    user = get_user_model().objects.create_user("bench", password="x")  # noqa: S106
    client = Client()
    client.force_login(user)

    from evals.core.keyset import cursor_text

    small = make_run("run-small", SMALL)
    started = time.perf_counter()
    large = make_run("run-large", scenarios)
    stored_s = time.perf_counter() - started
    print(
        f"database: {connection.vendor}; one run of {scenarios:,} scenarios "
        f"stored in {stored_s:.1f} s"
    )
    unstored_s = store_uncertainty(large)
    store_uncertainty(small)
    _, small_queries = measure(client, f"/evals/runs/{small}/")
    first_s, first_queries = measure(client, f"/evals/runs/{large}/")
    deep = cursor_text(True, f"bench:scenario-{scenarios // 2:05d}")
    deep_s, deep_queries = measure(client, f"/evals/runs/{large}/?after={deep}")
    before_s = before(user, large)

    print(f"before (every case in one table): {before_s * 1000:8.1f} ms")
    print(
        f"after, first page (failed first):  {first_s * 1000:8.1f} ms, "
        f"{first_queries} queries ({small_queries} for a run of {SMALL})"
    )
    print(
        f"after, a page deep in the passed:  {deep_s * 1000:8.1f} ms, "
        f"{deep_queries} queries"
    )
    print(
        f"(a run finished before its intervals were stored: {unstored_s * 1000:.1f} "
        "ms more a view, the intervals computed from every case)"
    )
    missed = []
    worst = max(first_s, deep_s)
    if worst >= TARGET_S:
        missed.append(f"the run page took {worst:.2f} s (target < {TARGET_S:.0f} s)")
    if max(first_queries, deep_queries) > small_queries:
        missed.append("the run page's query count grows with its cases")
    print(f"target: < {TARGET_S:.0f} s warm: " + ("; ".join(missed) or "met"))
    if missed:
        print("missed: run page", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
