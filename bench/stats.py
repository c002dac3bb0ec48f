"""The statistics engine's speed targets.

1. The ``--stat`` gate on two eval stores of one benchmark each, a run of
   10,000 scenarios x K=10 epochs (100,000 case results per run, case ids
   ``<scenario>#<epoch>``, with scores): what ``--stat`` adds to the gate
   (``evaluate_stat_gate``: grouping the epochs, the paired comparisons of
   passRate and score, flips, Holm; then its JSON and markdown reports),
   warm, best of 3. Target: under 1 s. Printed beside it: the plain gate's
   decision on the same stores; the time to read and validate the two
   stores, which both gates share, through the store reader's fast paths
   (best of 3) and through JSON Schema and the full checks alone, what it
   was before runs with caseResults took the fast paths (once; skip it with
   ``--no-reference``); and the whole ``python -m evals.gate --stat``
   command's wall time, interpreter start included (warm, best of 3), beside
   the same command as it was before the ``--stat`` gate read case results
   as columns and took t and normal from ``scipy.special`` (scipy.stats
   imported, case results built), with the ratio of their CPU times.
   Target for the command: under 1 s.
2. The gridworld figures over 1,000 episodes on 10 maps: IQM and mean with
   a stratified bootstrap of 2,000 resamples, and the probability of
   improvement of one batch over another paired by seed (2,000 resamples),
   warm, best of 5. Target: under 0.5 s for the three together.

Prints each figure with PASS/MISSED and exits 1 when a target is missed.
Usage: ``.venv/bin/python bench/stats.py [--scenarios N] [--repeats K]``.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals import cli  # noqa: E402
from evals.core import runs, store_reader  # noqa: E402
from evals.core.gate import evaluate_gate  # noqa: E402
from evals.core.gate_stat import evaluate_stat_gate  # noqa: E402
from evals.core.gate_stat_report import (  # noqa: E402
    stat_verdict_to_json,
    stat_verdict_to_markdown,
)
from gridworld.core.stats import (  # noqa: E402
    bootstrap_interval,
    probability_of_improvement,
)

GATE_TARGET_S = 1.0
BOOTSTRAP_TARGET_S = 0.5


def run_document(
    run_id: str, scenarios: int, repeats: int, rate: float, seed: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    cases = []
    for i in range(scenarios):
        p = min(1.0, max(0.0, rng.gauss(rate, 0.2)))
        for j in range(repeats):
            ok = rng.random() < p
            cases.append(
                {"caseId": f"scenario-{i:05d}#{j}", "passed": ok, "score": float(ok)}
            )
    passed = sum(1 for c in cases if c["passed"])
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": "bench-stats",
        "status": "completed",
        "startedAt": "2026-03-06T10:00:00.000Z",
        "completedAt": "2026-03-06T10:02:00.000Z",
        "totalCases": len(cases),
        "passedCases": passed,
        "failedCases": len(cases) - passed,
        "caseResults": cases,
    }


def best_of(times: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def verdict_line(name: str, seconds: float, target: float | None) -> bool:
    if target is None:
        print(f"{name}: {seconds * 1000:.0f} ms")
        return True
    ok = seconds < target
    print(
        f"{name}: {seconds * 1000:.0f} ms (target < {target * 1000:.0f} ms) {'PASS' if ok else 'MISSED'}"
    )
    return ok


def cpu_best_of(times: int, work: Callable[[], object]) -> float:
    """Fewest CPU seconds of ``work`` (this process and the children it
    waited for) in ``times`` runs: on a shared machine wall time mostly
    measures the other processes."""
    best = float("inf")
    for _ in range(times):
        before = _cpu_now()
        work()
        best = min(best, _cpu_now() - before)
    return best


def _cpu_now() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def read_through_json_schema(read: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds ``read()`` takes with both fast paths of run
    summaries answering "proves nothing": every run through JSON Schema and
    the full checks (the reference they are tested against)."""
    with (
        mock.patch.object(runs, "fast_recency", return_value=None),
        mock.patch.object(store_reader, "read_stored_run", return_value=None),
    ):
        started, cpu = time.perf_counter(), _cpu_now()
        read()
        return time.perf_counter() - started, _cpu_now() - cpu


# The gate command as it was before the --stat gate read case results as
# columns and took t and normal from scipy.special: scipy.stats imported,
# every case result built.
_GATE_AS_BEFORE = """
import sys
import scipy.stats
from evals import cli
_load = cli.load_gate_stores
cli.load_gate_stores = lambda request, executor, case_columns=False: _load(
    request, executor
)
cli.run()
"""


def gate_command_s(argv: list[str], *, as_before: bool = False) -> tuple[float, float]:
    """Wall time and CPU time of ``python -m evals.gate ARGV``, warm: each
    the best of 3 after one run (exit 0 or 1: a decision). ``as_before``:
    the command as it was before columns and scipy.special (``_GATE_AS_BEFORE``)."""
    if as_before:
        command = [sys.executable, "-c", _GATE_AS_BEFORE, *argv]
    else:
        command = [sys.executable, "-m", "evals.gate", *argv]

    def once() -> None:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
        if done.returncode not in (0, 1):
            raise SystemExit(done.stderr.decode())

    once()
    return best_of(3, once), cpu_best_of(3, once)


def bench_gate(scenarios: int, repeats: int, *, reference: bool) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        base, candidate = Path(tmp) / "base", Path(tmp) / "candidate"
        for root, run_id, rate, seed in (
            (base, "b1", 0.80, 1),
            (candidate, "c1", 0.79, 2),
        ):
            (root / "runs").mkdir(parents=True)
            document = run_document(run_id, scenarios, repeats, rate, seed)
            (root / "runs" / f"{run_id}.json").write_text(json.dumps(document))
        argv = [
            "--base",
            str(base),
            "--candidate",
            str(candidate),
            "--stat",
            "--workers",
            "1",
        ]
        request = cli.request_of(vars(cli.build_parser().parse_args(argv)))

        def read() -> tuple[Any, Any]:
            return cli.load_gate_stores(request, None)

        def read_columns() -> tuple[Any, Any]:
            return cli.load_gate_stores(request, None, case_columns=True)

        read()
        read_s = best_of(3, read)
        read_cpu_s = cpu_best_of(3, read)
        base_store, candidate_store = read_columns()
        columns_cpu_s = cpu_best_of(3, read_columns)
        reference_s = read_through_json_schema(read) if reference else None
        plain = evaluate_gate(base=base_store, candidate=candidate_store)

        def decide_and_report() -> None:
            verdict = evaluate_stat_gate(
                plain, base=base_store, candidate=candidate_store
            )
            json.dumps(stat_verdict_to_json(verdict))
            stat_verdict_to_markdown(verdict)

        decide_and_report()
        stat_s = best_of(3, decide_and_report)
        plain_s = best_of(
            3, lambda: evaluate_gate(base=base_store, candidate=candidate_store)
        )
        verdict = evaluate_stat_gate(plain, base=base_store, candidate=candidate_store)
        command_s, command_cpu_s = gate_command_s(argv[:-2])
        before_s, before_cpu_s = gate_command_s(argv[:-2], as_before=True)
    shown = ", ".join(
        f"{c.metric} {c.delta:+.4f} [{c.interval.low:+.4f}, {c.interval.high:+.4f}] {c.verdict.value}"
        for c in verdict.benchmarks[0].comparisons
    )
    print(f"--stat gate, 2 runs x {scenarios} scenarios x K={repeats}: {shown}")
    ok = verdict_line(
        "  --stat decision + JSON and markdown reports (stores read)",
        stat_s,
        GATE_TARGET_S,
    )
    verdict_line(
        "  plain gate decision on the same stores, for reference", plain_s, None
    )
    verdict_line(
        "  reading and validating both stores (shared with the plain gate; "
        f"evals.core.store_reader; CPU {read_cpu_s * 1000:.0f} ms)",
        read_s,
        None,
    )
    print(
        "  the same read with the case results as columns (what --stat reads): "
        f"CPU {columns_cpu_s * 1000:.0f} ms, {read_cpu_s / columns_cpu_s:.1f}x"
    )
    if reference_s is not None:
        verdict_line(
            "  the same read through JSON Schema and the full checks (the "
            f"reference; CPU {reference_s[1] * 1000:.0f} ms, "
            f"{reference_s[1] / read_cpu_s:.0f}x the fast read's)",
            reference_s[0],
            None,
        )
    command_ok = verdict_line(
        "  the whole `python -m evals.gate --stat` command (interpreter start, "
        f"read, decision, reports; CPU {command_cpu_s * 1000:.0f} ms)",
        command_s,
        GATE_TARGET_S,
    )
    print(
        "  the same command as before columns and scipy.special (scipy.stats "
        f"imported, case results built): {before_s * 1000:.0f} ms, CPU "
        f"{before_cpu_s * 1000:.0f} ms; now {before_cpu_s / command_cpu_s:.2f}x "
        "less CPU"
    )
    return ok and command_ok


def bench_bootstrap(episodes: int) -> bool:
    rng = random.Random(3)
    maps = [f"map-{i % 10}" for i in range(episodes)]
    a = [rng.gauss(i % 10, 1.0) for i in range(episodes)]
    b = [x + rng.gauss(0.1, 0.5) for x in a]
    by_seed_a = dict(enumerate(a))
    by_seed_b = dict(enumerate(b))
    strata = dict(enumerate(maps))

    def figures() -> None:
        bootstrap_interval(a, maps, statistic="iqm", seed=1)
        bootstrap_interval(a, maps, statistic="mean", seed=1)
        probability_of_improvement(by_seed_b, by_seed_a, strata, seed=1)

    figures()
    seconds = best_of(5, figures)
    found = bootstrap_interval(a, maps, statistic="iqm", seed=1)
    poi = probability_of_improvement(by_seed_b, by_seed_a, strata, seed=1)
    print(
        f"gridworld figures, {episodes} episodes on 10 maps, 2,000 resamples: "
        f"IQM {found.point:.3f} [{found.low:.3f}, {found.high:.3f}], "
        f"P(B > A) {poi.point:.3f} [{poi.low:.3f}, {poi.high:.3f}]"
    )
    return verdict_line(
        "  IQM + mean + probability of improvement", seconds, BOOTSTRAP_TARGET_S
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--episodes", type=int, default=1_000)
    parser.add_argument(
        "--no-reference",
        action="store_true",
        help="skip the store read through JSON Schema (about 20 s per 100,000 cases)",
    )
    args = parser.parse_args()
    results = [
        bench_gate(args.scenarios, args.repeats, reference=not args.no_reference),
        bench_bootstrap(args.episodes),
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
