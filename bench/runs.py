"""Runs on real Celery workers: the embedded default vs Postgres + Redis.

For each setup, in a child process with that setup's environment: migrate,
start a real ``celery worker`` (2 processes), then

1. latency: a 20-scenario run (idle-v1's scenarios) created and scheduled as
   the New run page does, timed from create to ``completed`` in the
   database (polled every 10 ms);
2. throughput: an N-scenario run (default 2,000), scenarios/s from create to
   ``completed``;
3. a gridworld batch of E episodes (default 1,000, the ``hazard`` map),
   created as the batch form does, from create to ``completed`` (target
   under a minute).

Setups: ``embedded`` (SQLite + the filesystem broker in a temp dir, what
``make demo`` runs) and, with ``--deployment-db URL --deployment-broker
URL``, a deployment (e.g. Postgres + Redis). Prints each figure, the
latency against the 2 s target and embedded/deployment throughput against
the >= 0.5 target. Figures move with the machine's load; compare the ratio.

    .venv/bin/python bench/runs.py [--scenarios N] [--episodes E] \\
        [--deployment-db postgres://... --deployment-broker redis://...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LATENCY_TARGET_S = 2.0
GRIDWORLD_TARGET_S = 60.0
THROUGHPUT_TARGET = 0.5


def _suite(target: Path, name: str, count: int) -> tuple[Path, Path]:
    import importlib.util

    # bench/evals.py (its module name would clash with the evals app).
    spec = importlib.util.spec_from_file_location(
        "bench_evals", ROOT / "bench/evals.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target.mkdir(parents=True)
    suite, script, _ = module.build_suite(target, count)
    named = target / f"{name}.jsonl"
    named_script = target / f"{name}.script.jsonl"
    suite.rename(named)
    script.rename(named_script)
    return named, named_script


def _wait(run_pk: int, started: float, worker: subprocess.Popen[bytes]) -> str:
    """The run's status once it is no longer queued or running."""
    from evals.models import Run

    deadline = started + 900
    while True:
        status = Run.objects.values_list("status", flat=True).get(pk=run_pk)
        if status not in ("queued", "running"):
            return str(status)
        if time.perf_counter() > deadline or worker.poll() is not None:
            raise RuntimeError(f"run {run_pk} stuck in {status}")
        time.sleep(0.01)


def child(workdir: Path, count: int, episodes: int) -> dict[str, Any]:
    """Runs inside the setup's environment; returns its figures."""
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    from evals.services.harness.create import eval_run_create
    from gridworld.services.batches import batch_create

    stamp = time.strftime("%Y%m%d%H%M%S")
    small = _suite(workdir / "small", f"latency-{stamp}", 20)
    large = _suite(workdir / "large", f"throughput-{stamp}", count)
    log = (workdir / "worker.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "evalsite", "worker", "-c", os.environ.get("BENCH_WORKER_CONCURRENCY", "2"),
         "-l", os.environ.get("BENCH_WORKER_LOG", "WARNING"), "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        time.sleep(1)
        # Warm the worker (imports, connections) with one run first.
        figures: dict[str, Any] = {}
        for label, (suite, script) in (
            ("warmup", small),
            ("latency", small),
            ("throughput", large),
        ):
            started = time.perf_counter()
            run = eval_run_create(
                suite_path=suite,
                profile="balanced",
                mode="thought_only",
                model="scripted",
                script_path=script,
                started_via="bench",
            )
            figures[f"{label}_status"] = _wait(run.pk, started, worker)
            figures[label] = time.perf_counter() - started
        started = time.perf_counter()
        batch = batch_create(config={"map": "hazard", "episodes": episodes, "seed": 7})
        figures["gridworld_status"] = _wait(batch.run.pk, started, worker)
        figures["gridworld"] = time.perf_counter() - started
        return figures
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def run_setup(
    name: str, env: dict[str, str], count: int, episodes: int
) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"evalsite-bench-runs-{name}-"))
    try:
        full = dict(os.environ)
        full.pop("DATABASE_URL", None)
        full.pop("CELERY_BROKER_URL", None)
        full.update(
            DJANGO_SETTINGS_MODULE="evalsite.settings",
            DJANGO_DEBUG="true",
            EVALSITE_ENV_FILE="",
            EVALSITE_VAR_DIR=str(workdir / "var"),
            EVALS_ARTIFACTS_DIR=str(workdir / "artifacts"),
            LOG_LEVEL="WARNING",
        )
        full.update(env)
        (workdir / "var").mkdir()
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(workdir), str(count), str(episodes)],
            env=full, capture_output=True, text=True, check=False, cwd=ROOT,
        )  # fmt: skip
        if out.returncode != 0:
            raise RuntimeError(f"{name}: {out.stderr[-3000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        figures = child(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        print(json.dumps(figures))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--deployment-db", help="e.g. postgres://.../evalsite_x")
    parser.add_argument("--deployment-broker", help="e.g. redis://127.0.0.1:6379/9")
    args = parser.parse_args()
    setups = {"embedded": {}}
    if args.deployment_db and args.deployment_broker:
        setups["deployment"] = {
            "DATABASE_URL": args.deployment_db,
            "CELERY_BROKER_URL": args.deployment_broker,
        }
    rates: dict[str, float] = {}
    missed: list[str] = []
    for name, env in setups.items():
        figures = run_setup(name, env, args.scenarios, args.episodes)
        latency = figures["latency"]
        rates[name] = args.scenarios / figures["throughput"]
        print(
            f"{name:10}: 20 scenarios create -> {figures['latency_status']} in "
            f"{latency:.2f} s (target < {LATENCY_TARGET_S:.0f} s) "
            f"{'PASS' if latency < LATENCY_TARGET_S else 'BELOW'}; "
            f"{args.scenarios} scenarios in {figures['throughput']:.1f} s = "
            f"{rates[name]:,.0f} scenarios/s ({figures['throughput_status']})"
        )
        if latency >= LATENCY_TARGET_S:
            missed.append(f"{name} latency {latency:.2f} s")
        took = figures["gridworld"]
        print(
            f"{name:10}: gridworld batch of {args.episodes} episodes create -> "
            f"{figures['gridworld_status']} in {took:.1f} s (target < "
            f"{GRIDWORLD_TARGET_S:.0f} s) "
            f"{'PASS' if took < GRIDWORLD_TARGET_S else 'BELOW'}"
        )
        if took >= GRIDWORLD_TARGET_S:
            missed.append(f"{name} gridworld batch {took:.1f} s")
    if "deployment" in rates:
        ratio = rates["embedded"] / rates["deployment"]
        print(
            f"ratio     : embedded/deployment = {ratio:.2f} (target >= "
            f"{THROUGHPUT_TARGET}) {'PASS' if ratio >= THROUGHPUT_TARGET else 'BELOW'}"
        )
        if ratio < THROUGHPUT_TARGET:
            missed.append(f"embedded/deployment {ratio:.2f}")
    if missed:
        print("MISSED: " + "; ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
