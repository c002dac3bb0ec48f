"""A 20-scenario run with K=5 repeats, started from the New run form, on the
embedded default (SQLite, tasks run in-process as ``make demo``'s eager
mode runs them): from the form's POST to the run ``completed`` in the
database, with every figure's interval computed. Target: under 3 s.

In a child process with a fresh var directory: migrate, write a
20-scenario suite (cycled from the shipped ones, with its script), log a
user in, POST ``/evals/runs/new`` with ``repeats=5``; the best of
``--tries`` (default 3) runs is the figure. Exit 1 when it misses the
target.

    .venv/bin/python bench/repeats.py [--scenarios 20] [--repeats 5] [--tries 3]
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
TARGET_S = 3.0


def _suite(target: Path, count: int) -> str:
    import importlib.util

    # bench/evals.py (its module name would clash with the evals app).
    spec = importlib.util.spec_from_file_location(
        "bench_evals", ROOT / "bench/evals.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target.mkdir(parents=True, exist_ok=True)
    suite, script, _ = module.build_suite(target, count)
    suite.rename(target / "repeats.jsonl")
    script.rename(target / "repeats.script.jsonl")
    return "repeats.jsonl"


def child(count: int, repeats: int, tries: int) -> dict[str, Any]:
    """Runs inside the embedded setup's environment; returns its figures."""
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from evals.models import Run

    call_command("migrate", interactive=False, verbosity=0)
    name = _suite(Path(os.environ["EVALS_SUITES_DIR"]), count)
    user = get_user_model().objects.create_superuser("bench", "b@example.com", "x")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    form = {
        "suite": name,
        "profile": "balanced",
        "mode": "thought_only",
        "model": "scripted",
        "script": "",
        "sampler": "standard",
        "seed": 0,
        "repeats": repeats,
        "reducer": "mean",
    }
    times: list[float] = []
    for _ in range(tries):
        started = time.perf_counter()
        response = client.post("/evals/runs/new", form)
        run = Run.objects.order_by("-pk").first()
        elapsed = time.perf_counter() - started
        if response.status_code != 302 or run is None:
            raise RuntimeError(f"the form answered {response.status_code}")
        if run.status != Run.Status.COMPLETED or not run.uncertainty.get("metrics"):
            raise RuntimeError(f"run {run.run_id} ended {run.status}")
        if run.case_results.count() != count * repeats:
            raise RuntimeError("the run stored the wrong number of cases")
        times.append(elapsed)
    return {"times": times, "cases": count * repeats}


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        figures = child(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        print(json.dumps(figures))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tries", type=int, default=3)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="evalsite-bench-repeats-"))
    try:
        env = dict(os.environ)
        env.pop("DATABASE_URL", None)
        env.pop("CELERY_BROKER_URL", None)
        env.update(
            DJANGO_SETTINGS_MODULE="evalsite.settings",
            DJANGO_DEBUG="true",
            EVALSITE_ENV_FILE="",
            EVALSITE_VAR_DIR=str(workdir / "var"),
            EVALS_ARTIFACTS_DIR=str(workdir / "artifacts"),
            EVALS_SUITES_DIR=str(workdir / "suites"),
            CELERY_TASK_ALWAYS_EAGER="true",
            LOG_LEVEL="WARNING",
        )
        (workdir / "var").mkdir()
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(args.scenarios),
             str(args.repeats), str(args.tries)],
            env=env, capture_output=True, text=True, check=False, cwd=ROOT,
        )  # fmt: skip
        if out.returncode != 0:
            print(out.stderr[-3000:], file=sys.stderr)
            return 2
        figures = json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    best = min(figures["times"])
    shown = ", ".join(f"{t:.2f}" for t in figures["times"])
    verdict = "ok" if best < TARGET_S else "MISSED"
    print(
        f"form run, {args.scenarios} scenarios x K={args.repeats} "
        f"({figures['cases']} cases), embedded SQLite, in-process: "
        f"best {best:.2f} s of [{shown}] s (the first is the process's first "
        f"request: imports and caches); target < {TARGET_S:g} s: {verdict}"
    )
    return 0 if best < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
