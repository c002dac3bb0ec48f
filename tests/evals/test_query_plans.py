"""The runs' and case results' hot reads walk their own index on PostgreSQL.

Over a skewed table (one benchmark holds 90% of 5,000 runs, every other
benchmark's runs are newer; two runs hold 2,000 cases each, every other
run 20), each read's real statement is explained and must read runs and
case results only through the index made for it, in the order it returns:
never a sequential scan, never a walk of an index shared by every benchmark
or a sort of all of one benchmark's runs for a page.
"""

from __future__ import annotations

from importlib import import_module

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evals.core.keyset import cursor_text
from evals.models import Benchmark, Run, ShadowRecord
from evals.selectors.baselines import shadow_record_list
from evals.selectors.keyset_pages import case_counts, case_page, newest_first_page
from evals.selectors.runs import (
    case_rows,
    harness_run_list,
    latest_completed_runs,
    run_cases,
    run_list,
)
from evals.selectors.trends import benchmark_trend
from evals.services.benchmark_records import latest_completed_run_items
from tests.builders import T0
from tests.query_plans import (
    assert_plan,
    plan_of,
    queryset_plan,
    statement_matching,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

RUNS = 5_000
BENCHMARKS = 20
CASES_PER_RUN = 20
BIG_RUN_CASES = 2_000
# Both lead with (run, case id); the second also holds the outcome.
CASE_INDEXES = ("uniq_case_per_run", "case_run_case_passed_idx")

# Run g (1..RUNS) belongs to the big benchmark for the oldest 90%, to the
# others after; every tenth is still running (no completedAt).
SEED_RUNS = """
INSERT INTO evals_run (run_id, benchmark_id, status, source, started_at,
  completed_at, total_cases, passed_cases, failed_cases, metrics, notes, git_ref,
  summary, store_path, config, suite_sha256, failed_properties, artifacts_dir,
  progress_done, error, uncertainty, created_at, updated_at)
SELECT 'run-' || g,
  CASE WHEN g <= %(big_rows)s THEN %(big)s
       ELSE (%(others)s::bigint[])[1 + g %% %(n_others)s] END,
  CASE WHEN g %% 10 = 0 THEN 'running' ELSE 'completed' END, 'api',
  %(t0)s + g * interval '1 minute',
  CASE WHEN g %% 10 <> 0 THEN %(t0)s + g * interval '1 minute' + interval '30 s' END,
  4, 3, 1, '{"passRate": 0.75}', '', '', '{}', '', '{}', '', '[]', '', 0, '', '{}',
  %(t0)s, %(t0)s
FROM generate_series(1, %(rows)s) AS g
"""

SEED_CASES = """
INSERT INTO evals_caseresult (run_id, case_id, passed, error, latency_ms,
  stimulus_kind, affordance, tags, details)
SELECT r.id, 'case-' || lpad(c::text, 5, '0'), c %% 4 <> 0, '', 12.5, 'chat', '',
  '[]', '{}'
FROM evals_run AS r
CROSS JOIN LATERAL generate_series(
  1, CASE WHEN r.run_id IN ('run-1', 'run-2') THEN %(big_cases)s
    ELSE %(per_run)s END
) AS c
"""


@pytest.fixture
def skewed():
    """The big benchmark and a small one over the seeded, analyzed runs."""
    benchmarks = Benchmark.objects.bulk_create(
        Benchmark(benchmark_id=f"bench-{i:02d}", kind="pack", title=f"b{i}")
        for i in range(BENCHMARKS)
    )
    big, others = benchmarks[0], benchmarks[1:]
    with connection.cursor() as cursor:
        cursor.execute(
            SEED_RUNS,
            {
                "t0": T0,
                "rows": RUNS,
                "big_rows": RUNS * 9 // 10,
                "big": big.pk,
                "others": [b.pk for b in others],
                "n_others": len(others),
            },
        )
        cursor.execute(
            SEED_CASES, {"big_cases": BIG_RUN_CASES, "per_run": CASES_PER_RUN}
        )
        cursor.execute("ANALYZE evals_run")
        cursor.execute("ANALYZE evals_caseresult")
        cursor.execute("ANALYZE evals_benchmark")
    return big, others[0]


def both(skewed):
    big, small = skewed
    return (("big benchmark", big), ("small benchmark", small))


def test_the_run_list_walks_the_newest_index_in_order(skewed) -> None:
    assert_plan(
        queryset_plan(run_list()[:50]),
        read="run list",
        table="evals_run",
        index="run_newest_idx",
        no_sort=True,
    )


def test_a_small_benchmarks_run_list_walks_its_own_index(skewed) -> None:
    _, small = skewed
    page = run_list(benchmark_id=small.benchmark_id)[:50]
    assert_plan(
        queryset_plan(page),
        read="run list of a small benchmark",
        table="evals_run",
        index="run_benchmark_newest_idx",
        no_sort=True,
    )
    big, _ = skewed
    # The big benchmark's page may walk the newest runs of all (it holds
    # most of them), never a sort of all its runs.
    assert_plan(
        queryset_plan(run_list(benchmark_id=big.benchmark_id)[:50]),
        read="run list of the big benchmark",
        table="evals_run",
        index=("run_benchmark_newest_idx", "run_newest_idx"),
        no_sort=True,
    )


def test_run_detail_reads_its_cases_by_the_unique_index(skewed) -> None:
    big_run = Run.objects.get(run_id="run-1")
    sql = statement_matching(r"evals_caseresult", lambda: run_cases(big_run))
    assert_plan(
        plan_of(sql),
        read="run detail's case results",
        table="evals_caseresult",
        index=CASE_INDEXES,
        no_sort=True,
    )


def test_compare_reads_both_runs_cases_by_the_unique_index(skewed) -> None:
    pks = list(
        Run.objects.filter(run_id__in=["run-1", "run-2"]).values_list("pk", flat=True)
    )
    sql = statement_matching(r"evals_caseresult", lambda: case_rows(pks))
    assert_plan(
        plan_of(sql),
        read="compare's case rows",
        table="evals_caseresult",
        index=CASE_INDEXES,
    )


def test_a_trend_reads_the_benchmarks_newest_finished_runs(skewed) -> None:
    for who, benchmark in both(skewed):
        sql = statement_matching(
            r"evals_run",
            lambda benchmark=benchmark: benchmark_trend(
                benchmark=benchmark, metric="passRate"
            ),
        )
        assert_plan(
            plan_of(sql),
            read=f"trend's runs ({who})",
            table="evals_run",
            index="run_benchmark_finished_idx",
            no_sort=True,
        )


def test_the_gates_latest_runs_read_one_index_entry_per_benchmark(skewed) -> None:
    big, small = skewed
    wanted = [big.benchmark_id, small.benchmark_id]
    sql = statement_matching(r"evals_run", lambda: latest_completed_runs(wanted))
    plan = plan_of(sql)
    assert_plan(
        plan,
        read="gate snapshot's latest completed runs",
        table="evals_run",
        index=("run_latest_completed_idx", "evals_run_pkey"),
    )
    assert "run_latest_completed_idx" in str(plan)


def test_the_gate_snapshots_candidate_runs_are_index_probes_per_benchmark(
    skewed,
) -> None:
    with CaptureQueriesContext(connection) as queries:
        latest_completed_run_items()
    statements = [q["sql"] for q in queries if "evals_run" in q["sql"]]
    assert len(statements) == 2, statements
    for sql in statements:
        assert_plan(
            plan_of(sql),
            read="gate snapshot's candidate runs",
            table="evals_run",
            index="run_latest_completed_idx",
        )


def test_the_migration_builds_outside_a_transaction_and_drops_the_old_indexes() -> None:
    migration = import_module("evals.migrations.0008_run_lists_walk_their_index")
    assert migration.Migration.atomic is False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename IN "
            "('evals_run', 'evals_caseresult') ORDER BY indexname"
        )
        names = {name for (name,) in cursor.fetchall()}
    assert {
        "run_newest_idx",
        "run_benchmark_newest_idx",
        "run_benchmark_finished_idx",
        "run_latest_completed_idx",
        "uniq_case_per_run",
    } <= names
    assert not names & {
        "evals_run_started_64f87d_idx",
        "evals_run_benchmark_id_a280b8a0",
        "evals_caseresult_run_id_7953a091",
    }


# --- keyset pages ------------------------------------------------------------------


def case_statements(run) -> list[str]:
    """Each statement of a first page, the page after it and one before."""
    first = case_page(run, size=50)
    statements = []
    for read in (
        lambda: case_page(run, size=50),
        lambda: case_page(run, size=50, after=first.next_after),
        lambda: case_page(run, size=50, before=first.next_after),
    ):
        with CaptureQueriesContext(connection) as queries:
            read()
        statements.extend(q["sql"] for q in queries if "evals_caseresult" in q["sql"])
    return statements


def test_a_page_of_a_runs_cases_walks_its_outcome_index(skewed) -> None:
    # The seeded run has 2,000 cases, a quarter failed: a page deep in the
    # failed ones and one across to the passed ones.
    big_run = Run.objects.get(run_id="run-1")
    statements = case_statements(big_run)
    assert len(statements) >= 3
    for sql in statements:
        assert_plan(
            plan_of(sql),
            read="a page of a run's cases",
            table="evals_caseresult",
            index=CASE_INDEXES,
            no_sort=True,
        )
    with CaptureQueriesContext(connection) as queries:
        case_counts(big_run)
    assert_plan(
        plan_of(queries[0]["sql"]),
        read="a run's case counts",
        table="evals_caseresult",
        index=CASE_INDEXES,
    )


def pages_of(runs, time_field="started_at", deep=2_000) -> list[str]:
    """The statements of a list's first page, and of the pages after and
    before a row ``deep`` rows down (a deep page must cost what the first
    does: no read of every row above it)."""
    row = runs.order_by(f"-{time_field}", "-pk")[deep]
    cursor = cursor_text(getattr(row, time_field), row.pk)
    statements = []
    for read in (
        lambda: newest_first_page(runs, time_field=time_field, size=50),
        lambda: newest_first_page(runs, time_field=time_field, size=50, after=cursor),
        lambda: newest_first_page(runs, time_field=time_field, size=50, before=cursor),
    ):
        with CaptureQueriesContext(connection) as queries:
            read()
        statements.extend(q["sql"] for q in queries)
    return statements


def test_run_list_pages_walk_their_index_from_the_cursor(skewed) -> None:
    _, small = skewed
    for read, runs, index, deep in (
        ("run list page", run_list(), "run_newest_idx", 2_000),
        (
            "a small benchmark's run list page",
            run_list(benchmark_id=small.benchmark_id),
            "run_benchmark_newest_idx",
            20,
        ),
    ):
        for sql in pages_of(runs, deep=deep):
            if "evals_run" not in sql or "evals_benchmark" in sql.split("FROM")[1]:
                continue
            assert_plan(
                plan_of(sql), read=read, table="evals_run", index=index, no_sort=True
            )


SEED_SHADOW = """
INSERT INTO evals_shadowrecord (trace_id, recorded_at, day, document, created_at)
SELECT 'trace-' || g, %(t0)s + g * interval '1 minute',
  (%(t0)s + g * interval '1 minute')::date, '{}', %(t0)s
FROM generate_series(1, %(rows)s) AS g
"""


def test_shadow_list_pages_walk_the_newest_index(db) -> None:
    with connection.cursor() as cursor:
        cursor.execute(SEED_SHADOW, {"t0": T0, "rows": 20_000})
        cursor.execute("ANALYZE evals_shadowrecord")
    day = ShadowRecord.objects.order_by("recorded_at").values_list("day", flat=True)[
        5_000
    ]
    for read, records, index in (
        ("shadow list page", shadow_record_list(), "shadow_newest_idx"),
        (
            "one day's shadow list page",
            shadow_record_list(day=day.isoformat()),
            "shadow_day_newest_idx",
        ),
    ):
        for sql in pages_of(records, time_field="recorded_at", deep=1_000):
            assert_plan(
                plan_of(sql),
                read=read,
                table="evals_shadowrecord",
                index=index,
                no_sort=True,
            )


def test_the_shadow_migration_builds_outside_a_transaction_and_drops_the_day_index(
    db,
) -> None:
    migration = import_module("evals.migrations.0010_shadow_newest_index")
    assert migration.Migration.atomic is False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'evals_shadowrecord'"
        )
        names = {name for (name,) in cursor.fetchall()}
    assert {"shadow_newest_idx", "shadow_day_newest_idx"} <= names
    assert not [name for name in names if name.startswith("evals_shadowrecord_day_")]


def test_the_harness_run_list_pages_walk_the_newest_index(skewed) -> None:
    big, small = skewed
    Benchmark.objects.filter(pk__in=[big.pk, small.pk]).update(kind="suite")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE evals_benchmark")
    for read, runs, index, deep in (
        ("harness run list page", harness_run_list(), ("run_newest_idx",), 2_000),
        (
            "a suite's harness run list page",
            harness_run_list(suite=small.benchmark_id),
            ("run_benchmark_newest_idx",),
            20,
        ),
    ):
        for sql in pages_of(runs, deep=deep):
            if "evals_run" not in sql:
                continue
            assert_plan(
                plan_of(sql), read=read, table="evals_run", index=index, no_sort=True
            )
