"""Eval harness throughput: evalsite vs Inspect AI on the same 1,000 scenarios.

Runs, in one process and one go:

1. evalsite: a 1,000-scenario suite (generated into a temp dir from the
   shipped scenarios, with new ids) through ``eval_run_create`` +
   ``run_execute`` in thought_only mode with the scripted model, every
   result stored (CaseResult rows, scenario artifacts, summary.json) in a
   fresh embedded-default SQLite database (WAL) in a temp dir under var/
   (``--configured-db`` uses the configured database instead), log lines
   written to a file;
2. Inspect AI (``pip install -e '.[bench]'``): the same number of samples
   through its built-in ``mockllm/model`` with ``generate()`` and
   ``includes()``, run offline (its tiktoken token counter is swapped for
   an approximation, as the script does).

Also measures the limit: the thinking pipeline alone (``run_pipeline``) over
the same scenarios and scripted outputs, frames parsed beforehand, nothing
logged or stored; once in a child process before evalsite runs and once in
this process after, and the faster of the two is the limit (a machine whose
speed moves between the two would otherwise move the share).

Each side pays what a process pays once before its clock starts (evalsite:
importing the executor and building the suite validators; Inspect AI: a
5-sample eval), and Django runs without DEBUG, with what the process holds
then frozen for the cycle collector (``gc.freeze()``), as a worker does. The
evalsite line also gives its CPU seconds: the rest of its wall time was
spent waiting (the disk, the database, other processes).

Prints scenarios/s of all three, the ratio to Inspect AI with PASS/BELOW
against the >= 10x target and the share of the pipeline-only rate with
PASS/BELOW against >= 25%. Figures move with the machine's load; the ratios
are what to compare. Usage:
``.venv/bin/python bench/evals.py [--scenarios N]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 10.0
PIPELINE_SHARE_TARGET = 0.25


def build_suite(target: Path, count: int) -> tuple[Path, Path, list[dict[str, Any]]]:
    """``count`` scenarios cycled from the shipped suites, renamed
    ``bench:<n>:<original id>``, with their scripted outputs."""
    shipped = ROOT / "evals" / "suites"
    scenarios: list[dict[str, Any]] = []
    outputs: dict[str, dict[str, Any]] = {}
    for name in ("idle-v1", "smoke"):
        for line in (shipped / f"{name}.jsonl").read_text("utf-8").splitlines():
            if line.strip():
                scenarios.append(json.loads(line))
        for line in (shipped / f"{name}.script.jsonl").read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                outputs[row["scenario_id"]] = row
    suite_lines, script_lines, rows = [], [], []
    for n in range(count):
        original = scenarios[n % len(scenarios)]
        scenario = dict(
            original, scenario_id=f"bench:{n:05d}:{original['scenario_id']}"
        )
        output = dict(outputs[original["scenario_id"]])
        output["scenario_id"] = scenario["scenario_id"]
        suite_lines.append(json.dumps(scenario, ensure_ascii=False))
        script_lines.append(json.dumps(output, ensure_ascii=False))
        rows.append({"scenario": scenario, "output": output["output"]})
    suite = target / "bench-1k.jsonl"
    script = target / "bench-1k.script.jsonl"
    suite.write_text("\n".join(suite_lines) + "\n", encoding="utf-8")
    script.write_text("\n".join(script_lines) + "\n", encoding="utf-8")
    return suite, script, rows


def setup_django(workdir: Path, *, configured_db: bool) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    # Production code paths (a worker runs with DEBUG off: no query log).
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "k" * 50)
    os.environ["EVALS_ARTIFACTS_DIR"] = str(workdir / "artifacts")
    if not configured_db:
        # The embedded default of `make demo`: SQLite (WAL) under the var dir.
        os.environ.pop("DATABASE_URL", None)
        os.environ["EVALSITE_VAR_DIR"] = str(workdir / "var")
        (workdir / "var").mkdir()
    os.environ.setdefault("LOG_LEVEL", "INFO")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    # The contract lines are still formatted and written, to a file rather
    # than the terminal.
    log_file = (workdir / "evalsite.log").open("w", encoding="utf-8")
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(log_file)


def warm_evalsite(workdir: Path) -> None:
    """What a process pays once, not per run, paid before the clock starts:
    importing the executor and building the suite validators (parsing a
    one-line suite of its own; no frame or result of the measured run is
    cached by it)."""
    from evals.core.suites import parse_suite
    from evals.services.runs.executors import executor_for

    executor_for("suite")
    line = (ROOT / "evals" / "suites" / "smoke.jsonl").read_text("utf-8")
    first = json.loads(line.splitlines()[0])
    first["scenario_id"] = "warm-up"
    parse_suite(json.dumps(first).encode(), path=workdir / "warm-up.jsonl")


def bench_evalsite(suite: Path, script: Path) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one run of the suite, and the run."""
    from evals.services.harness.create import eval_run_create
    from evals.services.runs.lifecycle import run_execute

    warm_evalsite(suite.parent)
    # As a worker does once started (evalsite.celery.freeze_startup_heap):
    # what the process holds is left out of the cycle collector's full
    # collections.
    gc.freeze()
    cpu = time.process_time()
    started = time.perf_counter()
    run = eval_run_create(
        suite_path=suite,
        profile="balanced",
        mode="thought_only",
        model="scripted",
        script_path=script,
        schedule=False,
        started_via="bench",
    )
    run = run_execute(run=run)
    return time.perf_counter() - started, time.process_time() - cpu, run


def bench_pipeline(suite: Path, script: Path) -> float:
    """Seconds for ``run_pipeline`` alone over every scenario (best of 3)."""
    from evals.core.suites import load_suite
    from stream.core.adapters import SAMPLERS, ScriptedAdapter
    from stream.core.frames import facts_from_wire
    from stream.core.pipeline import run_pipeline
    from stream.core.types import PromptProfile

    scenarios = load_suite(suite).scenarios
    facts = [(s.scenario_id, facts_from_wire(s.frame_doc)) for s in scenarios]
    adapter = ScriptedAdapter.from_path(script)
    sampler = SAMPLERS["standard"]
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for scenario_id, scenario_facts in facts:
            run_pipeline(
                scenario_facts,
                profile=PromptProfile.BALANCED,
                adapter=adapter,
                sampler=sampler,
                seed=0,
                clock=time.monotonic,
                scenario_id=scenario_id,
            )
        best = min(best, time.perf_counter() - started)
    return best


def pipeline_in_child(suite: Path, script: Path) -> float:
    """``bench_pipeline`` in a fresh process (nothing it caches reaches the
    evalsite run): its seconds."""
    done = subprocess.run(
        [sys.executable, __file__, "--pipeline-only", str(suite), str(script)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings"},
    )
    return float(done.stdout.split()[-1])


def bench_inspect(rows: list[dict[str, Any]], workdir: Path) -> float:
    import inspect_ai.model._model as model_module
    import inspect_ai.model._tokens as tokens_module
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate

    def approximate_tokens(text: str, *args: Any, **kwargs: Any) -> int:
        return len(text) // 4

    # tiktoken downloads its encoding on first use, which fails offline.
    tokens_module.count_text_tokens = approximate_tokens  # type: ignore[assignment]
    model_module.count_text_tokens = approximate_tokens  # type: ignore[attr-defined]

    samples = [
        Sample(
            input=json.dumps(row["scenario"]["frame"], ensure_ascii=False),
            target="Default output from mockllm",
            id=row["scenario"]["scenario_id"],
        )
        for row in rows
    ]
    # Its first eval() call pays imports and set-up once per process, as the
    # harness's warm-up does: a 5-sample eval before the clock starts.
    warm = Task(dataset=samples[:5], solver=[generate()], scorer=includes())
    eval(warm, model="mockllm/model", display="none", log_dir=str(workdir / "warm"))
    task = Task(dataset=samples, solver=[generate()], scorer=includes())
    started = time.perf_counter()
    logs = eval(
        task,
        model="mockllm/model",
        display="none",
        log_dir=str(workdir / "inspect-logs"),
    )
    elapsed = time.perf_counter() - started
    if logs[0].status != "success":
        raise RuntimeError(f"inspect eval ended with status {logs[0].status}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=1000)
    parser.add_argument(
        "--configured-db",
        action="store_true",
        help="store results in the configured database instead of a temp SQLite",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    parser.add_argument(
        "--pipeline-only",
        nargs=2,
        metavar=("SUITE", "SCRIPT"),
        help="print the seconds of run_pipeline alone over SUITE (internal)",
    )
    args = parser.parse_args()
    if args.pipeline_only:
        sys.path.insert(0, str(ROOT))
        print(bench_pipeline(*map(Path, args.pipeline_only)))
        return 0

    # Under the project's var/ (where the embedded default keeps its database
    # and, beside it, artifacts/), not the system's temp dir: on a shared
    # machine /tmp is where every test run creates and deletes files, and a
    # new file there can cost several times what it costs elsewhere on the
    # same disk.
    (ROOT / "var").mkdir(exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="bench-evals-", dir=ROOT / "var"))
    try:
        suite, script, rows = build_suite(workdir, args.scenarios)
        before = args.scenarios / pipeline_in_child(suite, script)
        setup_django(workdir, configured_db=args.configured_db)
        seconds, cpu_seconds, run = bench_evalsite(suite, script)
        ours = args.scenarios / seconds
        stored = run.case_results.count()
        print(
            f"evalsite : {args.scenarios} scenarios in {seconds:.2f} s = "
            f"{ours:,.0f} scenarios/s (thought_only, scripted, {stored} results "
            f"stored, status {run.status}, verdict "
            f"{'PASS' if run.verdict_passed else 'FAIL'}; {cpu_seconds:.2f} s "
            "of it on this process's CPU, the rest waiting on the disk, the "
            "database or the machine)"
        )
        after = args.scenarios / bench_pipeline(suite, script)
        limit = max(before, after)
        share = ours / limit
        print(
            f"pipeline : {limit:,.0f} scenarios/s (run_pipeline alone, the limit: "
            f"the faster of {before:,.0f} before and {after:,.0f} after); "
            f"evalsite = {share:.0%} of it (target >= "
            f"{PIPELINE_SHARE_TARGET:.0%}) "
            f"{'PASS' if share >= PIPELINE_SHARE_TARGET else 'BELOW'}"
        )
        try:
            theirs_seconds = bench_inspect(rows, workdir)
        except ImportError as exc:
            print(
                f"inspect  : not measured ({exc}); install it with "
                "`.venv/bin/pip install -e '.[bench]'`"
            )
            if share < PIPELINE_SHARE_TARGET:
                print(
                    f"MISSED: pipeline share {share:.0%} < {PIPELINE_SHARE_TARGET:.0%}"
                )
                return 1
            return 0
        theirs = args.scenarios / theirs_seconds
        print(
            f"inspect  : {args.scenarios} samples in {theirs_seconds:.2f} s = "
            f"{theirs:,.0f} samples/s (mockllm/model, generate() + includes(), "
            "whole eval() call)"
        )
        ratio = ours / theirs
        verdict = "PASS" if ratio >= TARGET_RATIO else "BELOW"
        print(f"ratio    : {ratio:.1f}x (target >= {TARGET_RATIO:.0f}x) {verdict}")
        missed = [
            text
            for text, met in (
                (
                    f"pipeline share {share:.0%} < {PIPELINE_SHARE_TARGET:.0%}",
                    share >= PIPELINE_SHARE_TARGET,
                ),
                (
                    f"ratio to Inspect {ratio:.1f}x < {TARGET_RATIO:.0f}x",
                    ratio >= TARGET_RATIO,
                ),
            )
            if not met
        ]
        if missed:
            print("MISSED: " + "; ".join(missed))
            return 1
        return 0
    finally:
        if args.keep:
            print(f"kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
