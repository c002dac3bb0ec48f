"""Filling the database of ``bench/scale.py`` level by level (Django set up).

``setup`` makes the fixed rows through the ORM and the services (1,000 agents
with their keys, the benchmarks, a grid map); ``fill_level`` streams the
level's new thoughts, tasks, runs, case results and batches into COPY
(``bench/scale_data.py`` builds the rows), then runs VACUUM ANALYZE, as
autovacuum would on a live table.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connection

from bench.scale_data import (
    AGENTS,
    BATCH_COLUMNS,
    CASE_COLUMNS,
    RUN_COLUMNS,
    RUN_STEP,
    SUITES,
    T0,
    TASK_COLUMNS,
    THOUGHT_COLUMNS,
    Generator,
    _copy_json,
    case_passes,
    copy_text,
    not_null_columns_missing,
    ts,
)

TABLES = {
    "stream_thought": THOUGHT_COLUMNS,
    "stream_task": TASK_COLUMNS,
    "evals_run": RUN_COLUMNS,
    "evals_caseresult": CASE_COLUMNS,
    "gridworld_episodebatch": BATCH_COLUMNS,
}
BIG_TABLES = ("stream_thought", "stream_task", "evals_run", "evals_caseresult")


@dataclass
class Fixture:
    """What the measurements need from the fixed rows."""

    generator: Generator
    staff: Any
    big_agent: Any
    small_agent: Any
    big_key: str
    small_key: str


def setup() -> Fixture:
    """Agents, benchmarks, the grid map; refuses when a model gained a NOT
    NULL column the generator does not fill."""
    from django.contrib.auth import get_user_model

    from evals.models import Benchmark
    from gridworld.models import GridMap
    from stream.services.agents import agent_create

    with connection.cursor() as cursor:
        for table, columns in TABLES.items():
            missing = not_null_columns_missing(cursor, table, columns)
            if missing:
                raise SystemExit(
                    f"bench/scale.py: {table} has NOT NULL columns the generator "
                    f"does not fill: {', '.join(missing)}"
                )
    users = get_user_model().objects
    staff = users.create_user("scale-staff", password="x", is_staff=True)  # noqa: S106
    owner = users.create_user("scale-owner", password="x")  # noqa: S106
    created = [
        agent_create(name=f"scale-agent-{rank:04d}", owner=owner)
        for rank in range(AGENTS)
    ]
    names = ["scale-compare", "scale-trend", "scale-grid"] + [
        f"scale-suite-{k:02d}" for k in range(SUITES)
    ]
    Benchmark.objects.bulk_create(
        Benchmark(
            benchmark_id=name,
            kind="gridworld" if name == "scale-grid" else "suite",
            title=name.replace("-", " "),
        )
        for name in names
    )
    text = "#####\n#S..#\n#.~G#\n#####"
    grid = GridMap.objects.create(
        name="hazard",
        text=text,
        digest=hashlib.sha256(text.encode()).hexdigest(),
        width=5,
        height=4,
    )
    pks = dict(Benchmark.objects.values_list("benchmark_id", "pk"))
    generator = Generator(
        agent_ids=[c.agent.pk for c in created], benchmark_pks=pks, grid_map_pk=grid.pk
    )
    return Fixture(
        generator=generator,
        staff=staff,
        big_agent=created[0].agent,
        small_agent=created[-1].agent,
        big_key=created[0].api_key,
        small_key=created[-1].api_key,
    )


def _run_pks(cursor: Any, first: int, last: int) -> list[int]:
    cursor.execute(
        "SELECT id FROM evals_run WHERE run_id BETWEEN %s AND %s ORDER BY run_id",
        [f"scale-run-{first:07d}", f"scale-run-{last:07d}"],
    )
    return [row[0] for row in cursor.fetchall()]


def _passed(count: int, seed: int) -> int:
    return sum(case_passes(k, seed) for k in range(count))


def _grow_compare(cursor: Any, gen: Generator, target: int) -> None:
    """Create the two compare runs (first level) and grow them to ``target``
    cases each, with their totals and summaries."""
    if gen.compare_run_pks is None:
        first = gen.runs
        rows = "".join(gen.run_row("scale-compare", 0, 0) for _ in range(2))
        copy_text(cursor, "evals_run", RUN_COLUMNS, [rows])
        pks = _run_pks(cursor, first, first + 1)
        gen.compare_run_pks = (pks[0], pks[1])
    if target <= gen.compare_cases:
        return
    for seed, pk in enumerate(gen.compare_run_pks):
        chunks = gen.case_lines(pk, gen.compare_cases, target - gen.compare_cases, seed)
        copy_text(cursor, "evals_caseresult", CASE_COLUMNS, chunks)
        passed = _passed(target, seed)
        cursor.execute(
            "UPDATE evals_run SET total_cases = %s, passed_cases = %s, "
            "failed_cases = %s, progress_done = %s, "
            "summary = summary || %s::jsonb WHERE id = %s",
            [
                target,
                passed,
                target - passed,
                target,
                _copy_json(
                    {
                        "totalCases": target,
                        "passedCases": passed,
                        "failedCases": target - passed,
                    }
                ),
                pk,
            ],
        )
    gen.cases += 2 * (target - gen.compare_cases)
    gen.compare_cases = target


def _batch_rows(gen: Generator, runs: list[tuple[int, int]]) -> Iterator[str]:
    """EpisodeBatch rows of the gridworld runs ``(run index, run pk)``."""
    config = _copy_json(
        {"layout": "hazard", "episodes": 100, "seed": 7, "maxSteps": 200}
    )
    yield "".join(
        f"{pk}\t{gen.grid_map_pk}\t{config}\t{index}\t100\tplanner\t"
        f"lexicographic\t{ts(T0 + RUN_STEP * index)}\n"
        for index, pk in runs
    )


def _run_rows(gen: Generator, plan: list[tuple[str, int]]) -> Iterator[str]:
    first = gen.runs
    for start in range(0, len(plan), 2000):
        yield "".join(
            gen.run_row(name, size, _passed(size, first + k))
            for k, (name, size) in enumerate(plan[start : start + 2000], start)
        )


def fill_level(gen: Generator, thoughts: int, compare_target: int) -> dict[str, float]:
    """Add rows up to ``thoughts`` thoughts and as many case results;
    returns the seconds each step took."""
    from stream.services.counters import queue_held_forget

    took: dict[str, float] = {}
    with connection.cursor() as django_cursor:
        cursor = django_cursor.cursor  # psycopg's own cursor: COPY
        start = time.perf_counter()
        copy_text(
            cursor,
            "stream_thought",
            THOUGHT_COLUMNS,
            gen.thought_lines(thoughts - gen.thoughts),
        )
        copy_text(
            cursor,
            "stream_task",
            TASK_COLUMNS,
            gen.task_lines(thoughts // 200 - gen.tasks),
        )
        # Loaded, not published: each agent's next publish counts its queue.
        queue_held_forget()
        took["thoughts"] = time.perf_counter() - start
        start = time.perf_counter()
        _grow_compare(cursor, gen, compare_target)
        plan = gen.plan_runs(thoughts - gen.cases, compare_target)
        first = gen.runs
        copy_text(cursor, "evals_run", RUN_COLUMNS, _run_rows(gen, plan))
        pks = _run_pks(cursor, first, gen.runs - 1)

        def cases() -> Iterator[str]:
            for k, ((_, size), pk) in enumerate(zip(plan, pks, strict=True)):
                yield from gen.case_lines(pk, 0, size, first + k)

        copy_text(cursor, "evals_caseresult", CASE_COLUMNS, cases())
        gen.cases += sum(size for _, size in plan)
        grid = [
            (first + k, pk)
            for k, ((name, _), pk) in enumerate(zip(plan, pks, strict=True))
            if name == "scale-grid"
        ]
        copy_text(
            cursor, "gridworld_episodebatch", BATCH_COLUMNS, _batch_rows(gen, grid)
        )
        took["runs"] = time.perf_counter() - start
        start = time.perf_counter()
        for table in BIG_TABLES:
            cursor.execute(f"VACUUM ANALYZE {table}")
        took["analyze"] = time.perf_counter() - start
    return took
