"""The growth table: hot paths timed at 10^4 .. 10^7 thoughts on Postgres.

    DATABASE_URL=postgres://... .venv/bin/python bench/scale.py --quick  # 10^4, 10^5
    DATABASE_URL=postgres://... .venv/bin/python bench/scale.py          # .. 10^6
    DATABASE_URL=postgres://... .venv/bin/python bench/scale.py --full   # .. 10^7

Postgres only (it refuses SQLite): it makes a throwaway database beside the
configured one (``<name>_scale``), fills it level by level with COPY
(``bench/scale_fill.py``, ``bench/scale_data.py``: thoughts over 1,000 agents
with a Zipf law, one run per 100 case results, as many case results as
thoughts) and after each level times every hot path through the real code
(the Django test client with a staff session or an agent's key, DEBUG off):
the median of several calls, in ms.

The rule: a path fails when its median grows faster than log n from the
reference size (10^5; 10^4 with ``--quick``) to the top size, that is when
``(t_top / t_ref) / max(1, f_top / f_ref) > (log10 top / log10 ref) * 1.5`` and
``t_top - t_ref`` is more than ``NOISE_MS`` (a sub-millisecond path that
moves by a millisecond on a shared machine is noise, not growth). ``f`` is
the floor, a trivial keyed request (``GET /api/whoami``) timed before every
path of a level: its growth is the machine's load changing, not the data.
With ``--explain`` it also prints, at the top size, each path's query count
and the first nodes of its slowest query's plan. The database is dropped at
the end (``--keep`` keeps it). Exit codes: 0 every path within the rule, 1
some path grows faster (each named), 2 no Postgres (``DATABASE_URL`` unset or
SQLite).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SLACK = 1.5
NOISE_MS = 2.0
# The compared runs (and the run of "run detail") hold this many cases at
# every size, so their figures measure the tables around them, not the run.
COMPARE_CASES = 2000
EXIT_NO_POSTGRES = 2
QUICK = (10**4, 10**5)
DEFAULT = (10**4, 10**5, 10**6)
FULL = (10**4, 10**5, 10**6, 10**7)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="10^4 and 10^5 only")
    size.add_argument("--full", action="store_true", help="up to 10^7")
    parser.add_argument("--explain", action="store_true", help="plans' top nodes")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    return parser.parse_args(argv)


def prepare_environment() -> tuple[str, str]:
    """Point Django at a fresh throwaway database; returns (server, name)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print(
            "bench/scale.py measures Postgres only: set DATABASE_URL=postgres://... "
            "(the embedded SQLite database is not what grows to 10^7 rows)",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_NO_POSTGRES)
    import psycopg

    base, _, name = url.rpartition("/")
    bench_db = f"{name.split('?')[0]}_scale"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{bench_db}"')
        pg.execute(f'CREATE DATABASE "{bench_db}"')
    tmp = tempfile.mkdtemp(prefix="evalsite-scale-")
    os.environ["DATABASE_URL"] = f"{base}/{bench_db}"
    os.environ.setdefault("EVALSITE_VAR_DIR", tmp)
    os.environ["DJANGO_DEBUG"] = "false"  # production code paths
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "k" * 50)
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
    os.environ["DJANGO_STATIC_ROOT"] = os.path.join(tmp, "static")
    os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
    os.environ["LOG_LEVEL"] = "WARNING"
    # The skewed agents hold far more than the deployed per-agent cap; the
    # bench measures reads over what is stored, not the prune.
    os.environ["STREAM_QUEUE_HARD_CAP"] = str(10**9)
    os.environ["API_KEY_THROTTLE_RATE"] = "100000000/minute"
    return base, bench_db


def table_sizes() -> str:
    """The two big tables' size on disk, indexes included."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_size_pretty(pg_total_relation_size('stream_thought')), "
            "pg_size_pretty(pg_total_relation_size('evals_caseresult'))"
        )
        thoughts, cases = cursor.fetchone()
    return f"thoughts {thoughts}, case results {cases} on disk"


def drop_database(base: str, name: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{name}"')


def label(size: int) -> str:
    return f"10^{round(math.log10(size))}"


def reference_index(sizes: tuple[int, ...]) -> int:
    """Growth is judged from 10^5, or from the first size when 10^5 is the
    top (``--quick``)."""
    return sizes.index(10**5) if 10**5 in sizes and sizes[-1] != 10**5 else 0


def verdicts(
    table: dict[str, list[float]], sizes: tuple[int, ...], floor: str | None = None
) -> list[tuple[str, float, float, float, bool]]:
    """(path, growth, load-adjusted growth, allowed, failed) from the
    reference size to the top. The adjusted growth divides by the floor's
    growth when the floor got slower (a trivial keyed request timed all
    through each level), so a busier machine at the top size is not taken
    for growth."""
    ref = reference_index(sizes)
    allowed = math.log10(sizes[-1]) / math.log10(sizes[ref]) * SLACK
    load = 1.0
    if floor is not None and table[floor][ref] > 0:
        # Only a busier machine is taken out: a quieter one at the top size
        # would otherwise inflate every path's growth.
        load = max(1.0, table[floor][-1] / table[floor][ref])
    rows = []
    for path, times in table.items():
        growth = times[-1] / times[ref] if times[ref] > 0 else math.inf
        adjusted = growth / load
        failed = (
            path != floor and adjusted > allowed and times[-1] - times[ref] > NOISE_MS
        )
        rows.append((path, growth, adjusted, allowed, failed))
    return rows


def print_table(
    table: dict[str, list[float]], sizes: tuple[int, ...], floor: str | None = None
) -> list[str]:
    """The growth table in markdown; returns the failing paths."""
    ref = reference_index(sizes)
    width = max(len(path) for path in table)
    head = " | ".join(f"{label(s):>8}" for s in sizes)
    span = f"{label(sizes[ref])} -> {label(sizes[-1])}"
    print(
        f"\n| {'path (median ms)':<{width}} | {head} | growth {span} "
        "| load-adjusted | verdict |"
    )
    print(f"|{'-' * (width + 2)}|" + "---:|" * (len(sizes) + 2) + "---|")
    failed = []
    for (path, growth, adjusted, allowed, bad), times in zip(
        verdicts(table, sizes, floor), table.values(), strict=True
    ):
        cells = " | ".join(f"{t:8.2f}" for t in times)
        word = "reference" if path == floor else "ok"
        if bad:
            word = f"FAIL (> {allowed:.2f}x)"
            failed.append(path)
        print(
            f"| {path:<{width}} | {cells} | {growth:.2f}x | {adjusted:.2f}x | {word} |"
        )
    return failed


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = QUICK if args.quick else FULL if args.full else DEFAULT
    base, name = prepare_environment()
    import django

    django.setup()
    from django.core.management import call_command

    from bench.scale_fill import fill_level, setup
    from bench.scale_paths import FLOOR, Measurer

    started = time.perf_counter()
    try:
        call_command("migrate", verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        fixture = setup()
        measurer = Measurer(fixture)
        table: dict[str, list[float]] = {}
        plans: dict[str, str] = {}
        for size in sizes:
            took = fill_level(fixture.generator, size, COMPARE_CASES)
            gen = fixture.generator
            print(
                f"{label(size)}: {gen.thoughts:,} thoughts, {gen.runs:,} runs, "
                f"{gen.cases:,} case results ({table_sizes()}); generated in "
                + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()),
                flush=True,
            )
            figures = measurer.measure_all()
            for path, ms in figures.items():
                table.setdefault(path, []).append(ms)
            if size == sizes[-1] and args.explain:
                plans = measurer.explain_all(figures)
        print(f"\nmachine: {os.cpu_count()} CPUs; load {os.getloadavg()}")
        failed = print_table(table, sizes, FLOOR)
        for path in sorted(measurer.capped):
            print(f"  {path}: stopped at its cap at the top size (a lower bound)")
        for path, plan in plans.items():
            print(f"  {path}: {plan}")
        print(f"\ntotal {time.perf_counter() - started:.0f} s")
    finally:
        if not args.keep:
            drop_database(base, name)
    for path in failed:
        print(f"grows faster than log n: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
