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
worker processes' CPU per episode and per run and how many cores they kept
busy, and two models of larger N: Amdahl's law fitted to the 2-worker
speedup S2 (serial share s = 2 / S2 - 1; S(N) = N / (1 + s (N - 1))), and
the CPU-bound ceiling of one worker with a core of its own (1 / its CPU per
item; N workers on N free cores: N times that, while Postgres and Redis keep
up). On a shared 2-core machine the workers wait for a core much of the
time (few cores busy), so a count past 2 measures how much of the contended
CPU more processes win, not scaling. Exits 1 when 2 workers are not at
least 1.3x one worker on either load.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
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


def tree_cpu_s(procs: list[subprocess.Popen[bytes]]) -> float:
    """CPU seconds used so far by the worker nodes and their pool processes
    (Linux: /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for proc in procs:
        pids = [proc.pid]
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        if children.exists():
            pids += [int(pid) for pid in children.read_text().split()]
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def measure(
    n: int, label: str, episodes: int, runs: int, paths: tuple[Path, Path]
) -> dict[str, float]:
    procs = start_workers(n, label)
    try:
        cpu0 = tree_cpu_s(procs)
        t0 = time.perf_counter()
        batch = batch_create(
            config={"map": "hazard", "episodes": episodes, "seed": 7},
            queue="gridworld",
            started_via="bench",
        )
        wait_done([batch.run_id])
        gridworld_s = time.perf_counter() - t0
        cpu1 = tree_cpu_s(procs)
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
        cpu2 = tree_cpu_s(procs)
    finally:
        stop(procs)
    return {
        "episodes_per_s": episodes / gridworld_s,
        "runs_per_s": runs / runs_s,
        "busy_cores": (cpu2 - cpu0) / (gridworld_s + runs_s),
        "cpu_ms_per_episode": (cpu1 - cpu0) * 1000 / episodes,
        "cpu_ms_per_run": (cpu2 - cpu1) * 1000 / runs,
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
                f"{got['runs_per_s']:.2f} runs/s, {got['busy_cores']:.2f} cores busy; "
                f"worker CPU {got['cpu_ms_per_episode']:.1f} ms an episode, "
                f"{got['cpu_ms_per_run']:.0f} ms a run"
            )
            mine = best.setdefault(n, {})
            for key, value in got.items():
                keep = min if key.startswith("cpu_") else max
                mine[key] = keep(mine.get(key, value), value)
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
    if one is not None:
        # Where each worker has a core of its own, one worker's rate is
        # bounded by its CPU per item; N workers by N times that, until
        # Postgres or Redis saturate (not modelled).
        episode_ms, run_ms = one["cpu_ms_per_episode"], one["cpu_ms_per_run"]
        print(
            f"CPU-bound ceiling per worker with a core of its own: "
            f"{1000 / episode_ms:,.0f} episodes/s, {1000 / run_ms:.1f} runs/s "
            f"(measured at 1 worker: {one['episodes_per_s']:,.0f} and {one['runs_per_s']:.2f})"
        )
    print(f"2 workers >= {SPEEDUP_TARGET}x one: " + ("PASS" if passed else "missed"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
