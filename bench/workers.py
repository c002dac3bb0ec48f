"""Scale out: 1, 2 (and 4) Celery worker processes on Redis + Postgres
draining 10,000 gridworld episodes and 100 scenario runs.

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://host:6379/N \\
        .venv/bin/python bench/workers.py [--episodes 10000] [--runs 100] \\
        [--workers 1,2] [--rounds 2]

For each worker count N (rounds alternate 1, 2, 1, 2, ... so load on the
machine falls on each alike; the best round counts), N worker nodes of one
process each (``-c 1``, as N containers of ``worker-gridworld`` or
``worker-runs`` would run) consume the ``gridworld`` and ``runs`` queues;
once all are ready,

1. a gridworld batch of ``--episodes`` episodes (``hazard`` map), sent to the
   ``gridworld`` queue as 25-episode chunks, is timed from create to
   ``completed``;
2. ``--runs`` scenario runs of 20 scenarios each (the shipped suites,
   scripted outputs), created one after another, are timed from the first
   create to the last run ``completed``.

It prints episodes/s and runs/s for each N, the speedup over one worker, the
worker processes' CPU seconds per second of wall time (how many cores they
kept busy), and a model of larger N: Amdahl's law fitted to the 2-worker
speedup S2 (serial share s = 2 / S2 - 1; S(N) = N / (1 + s (N - 1))), which
holds where the machine has at least N free cores and Postgres and Redis
keep up. On a 2-core machine a count past 2 measures oversubscription, not
scaling. Exits 1 when 2 workers are not at least 1.3x one worker on either
load.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TMP = Path(tempfile.mkdtemp(prefix="evalsite-bench-workers-"))
SPEEDUP_TARGET = 1.3
os.environ.update(
    DJANGO_SETTINGS_MODULE="evalsite.settings",
    DJANGO_DEBUG="false",
    DJANGO_SECRET_KEY=os.environ.get("DJANGO_SECRET_KEY", "bench-" + "k" * 50),
    DJANGO_ALLOWED_HOSTS="testserver",
    DJANGO_SECURE_SSL_REDIRECT="false",
    EVALSITE_ENV_FILE="",
    EVALSITE_VAR_DIR=str(TMP / "var"),
    EVALS_ARTIFACTS_DIR=str(TMP / "artifacts"),
    LOG_LEVEL="WARNING",
)
if not os.environ.get("DATABASE_URL", "").startswith("postgres") or not (
    os.environ.get("CELERY_BROKER_URL", "").startswith("redis")
):
    sys.exit(
        "bench/workers.py needs DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://..."
    )
import psycopg  # noqa: E402

# A throwaway database named after the configured one, fresh each run.
BASE, _, NAME = os.environ["DATABASE_URL"].rpartition("/")
with psycopg.connect(f"{BASE}/postgres", autocommit=True) as pg:
    pg.execute(f"DROP DATABASE IF EXISTS {NAME}_workers")
    pg.execute(f"CREATE DATABASE {NAME}_workers")
os.environ["DATABASE_URL"] = f"{BASE}/{NAME}_workers"

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from evals.models import Run  # noqa: E402
from evals.services.harness.create import eval_run_create  # noqa: E402
from evalsite.celery import app  # noqa: E402
from gridworld.services.batches import batch_create  # noqa: E402


def suite(count: int) -> tuple[Path, Path]:
    """``count`` scenarios of the shipped suites with scripted outputs
    (bench/evals.py builds them; its module name would clash with the app)."""
    spec = importlib.util.spec_from_file_location(
        "bench_evals", ROOT / "bench/evals.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = TMP / "suite"
    target.mkdir(exist_ok=True)
    path, script, _ = module.build_suite(target, count)
    return path, script


def start_workers(n: int, label: str) -> list[subprocess.Popen[bytes]]:
    """``n`` worker nodes of one process each on gridworld and runs; returned
    once every one says it is ready."""
    procs, logs = [], []
    for k in range(n):
        log = TMP / f"worker-{label}-{k}.log"
        logs.append(log)
        with log.open("w") as out:
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "celery",
                        "-A",
                        "evalsite",
                        "worker",
                        "-Q",
                        "gridworld,runs",
                        "-c",
                        "1",
                        "-n",
                        f"bench-{label}-{k}@%h",
                        "-l",
                        "INFO",
                        "--without-gossip",
                        "--without-mingle",
                        "--without-heartbeat",
                    ],
                    cwd=ROOT,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, "LOG_LEVEL": "INFO"},
                    start_new_session=True,
                )  # fmt: skip
            )
    deadline = time.monotonic() + 120
    while not all("ready." in log.read_text(errors="replace") for log in logs):
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            stop(procs)
            sys.exit("a worker did not start:\n" + logs[0].read_text()[-3000:])
        time.sleep(0.1)
    return procs


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        proc.wait(timeout=60)


def wait_done(pks: list[int], timeout: float = 3600) -> None:
    deadline = time.monotonic() + timeout
    while Run.objects.filter(pk__in=pks, status__in=("queued", "running")).exists():
        if time.monotonic() > deadline:
            sys.exit(f"runs still not finished after {timeout:.0f} s")
        time.sleep(0.05)
    failed = Run.objects.filter(pk__in=pks).exclude(status="completed").count()
    if failed:
        sys.exit(f"{failed} of {len(pks)} runs did not complete")


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(
    n: int, label: str, episodes: int, runs: int, paths: tuple[Path, Path]
) -> dict[str, float]:
    cpu0 = children_cpu_s()
    procs = start_workers(n, label)
    try:
        t0 = time.perf_counter()
        batch = batch_create(
            config={"map": "hazard", "episodes": episodes, "seed": 7},
            queue="gridworld",
            started_via="bench",
        )
        wait_done([batch.run_id])
        gridworld_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        pks = [
            eval_run_create(
                suite_path=paths[0], script_path=paths[1], profile="balanced",
                mode="thought_only", model="scripted", started_via="bench",
            ).pk
            for _ in range(runs)
        ]  # fmt: skip
        wait_done(pks)
        runs_s = time.perf_counter() - t0
    finally:
        stop(procs)
    return {
        "episodes_per_s": episodes / gridworld_s,
        "runs_per_s": runs / runs_s,
        "busy_cores": (children_cpu_s() - cpu0) / (gridworld_s + runs_s),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    counts = [int(c) for c in args.workers.split(",")]
    call_command("migrate", verbosity=0)
    app.connection().default_channel.client.flushdb()
    paths = suite(20)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start")
    best: dict[int, dict[str, float]] = {}
    for rnd in range(args.rounds):
        for n in counts:
            got = measure(n, f"{rnd}-{n}", args.episodes, args.runs, paths)
            print(
                f"round {rnd + 1}, {n} worker(s): {got['episodes_per_s']:,.0f} episodes/s, "
                f"{got['runs_per_s']:.2f} runs/s, {got['busy_cores']:.2f} cores busy"
            )
            for key, value in got.items():
                mine = best.setdefault(n, {})
                mine[key] = max(mine.get(key, 0.0), value)
    one = best[counts[0]] if counts[0] == 1 else None
    passed = True
    for key, what in (
        ("episodes_per_s", "gridworld episodes"),
        ("runs_per_s", "scenario runs"),
    ):
        if one is None:
            break
        line = [f"{n}: {best[n][key] / one[key]:.2f}x" for n in counts]
        print(f"{what}: speedup over 1 worker " + ", ".join(line))
        if 2 in best:
            s2 = best[2][key] / one[key]
            serial = max(0.0, 2 / s2 - 1)
            model = ", ".join(f"{n}: {n / (1 + serial * (n - 1)):.2f}x" for n in (4, 8))
            print(
                f"{what}: Amdahl fit to 2 workers (serial share {serial:.2f}): {model}"
            )
            passed &= s2 >= SPEEDUP_TARGET
    print(f"2 workers >= {SPEEDUP_TARGET}x one: " + ("PASS" if passed else "missed"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
