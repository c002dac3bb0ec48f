"""The paired comparisons of two runs from each scenario's counts.

For pass/fail values every figure of the statistical gate depends on a
scenario only through its number of epochs ``n`` and of passed epochs
``c``: the reduced value (mean ``c / n``, majority, max, pass@k, pass^k),
whether values are 0/1, K, the flips. So the database can group the case
results by scenario and hand over a few numbers per scenario instead of a
row per case; ``epochs_from_counts`` builds the ``Epochs`` the per-case
path builds (passes first within a scenario, which no figure depends on)
and ``stat_gate_from_counts`` decides exactly what
``evals.core.gate_stat.evaluate_stat_gate`` decides for two stored runs
(run against run, default margins, case results without scores).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from evals.core.formats_types import RunSummary
from evals.core.gate import GateVerdict
from evals.core.gate_stat import (
    PASS_RATE,
    BenchmarkComparison,
    StatGateVerdict,
    stat_verdict,
)
from evals.core.metric_registry import MetricDirection, direction, threshold
from evals.core.stats import Epochs, split_epoch
from evals.core.stats_input import MAX_REPEATS, MEAN, StatInputError
from evals.core.stats_paired import (
    compare,
    compare_proportions,
    flips,
    require_same_benchmark,
)

# (scenario, epochs, passed epochs) of one run, in any order.
ScenarioCounts = Sequence[tuple[str, int, int]]


def split_as_python(counts: ScenarioCounts) -> bool:
    """Whether every scenario name is one ``split_epoch`` leaves whole (the
    database split the ids by ASCII digits; a name still ending in
    ``#<digits>`` of another script must be grouped in Python instead)."""
    return all(split_epoch(name)[0] == name for name, _, _ in counts)


def epochs_from_counts(
    counts: ScenarioCounts, *, max_repeats: int = MAX_REPEATS
) -> Epochs:
    """The ``Epochs`` of pass/fail values with these counts, scenarios
    sorted by name. ``StatInputError`` naming ``repeats`` as ``group_cases``
    raises it."""
    rows = sorted(counts)
    names = tuple(name for name, _, _ in rows)
    totals = np.fromiter((n for _, n, _ in rows), dtype=np.int64, count=len(rows))
    passes = np.fromiter((c for _, _, c in rows), dtype=np.int64, count=len(rows))
    if len(rows) and int(totals.max()) > max_repeats:
        raise StatInputError(
            "repeats",
            f"a scenario has {int(totals.max())} epochs; at most {max_repeats}",
        )
    width = int(totals.max()) if len(rows) else 1
    column = np.arange(width)[np.newaxis, :]
    values = np.where(
        column < passes[:, np.newaxis],
        1.0,
        np.where(column < totals[:, np.newaxis], 0.0, np.nan),
    )
    return Epochs(names, values, totals)


def _higher(name: str) -> bool:
    return direction(name) is not MetricDirection.LOWER_IS_BETTER


def _benchmark(
    benchmark_id: str,
    base: RunSummary,
    candidate: RunSummary,
    epochs: tuple[Epochs, Epochs] | None,
) -> BenchmarkComparison:
    require_same_benchmark(base.benchmark_id, candidate.benchmark_id)
    summary_metrics = tuple(
        sorted((base.metrics or {}).keys() & (candidate.metrics or {}).keys())
    )
    if epochs is None:
        rate = compare_proportions(
            (base.passed_cases, base.total_cases),
            (candidate.passed_cases, candidate.total_cases),
            margin=threshold(PASS_RATE),
        )
        return BenchmarkComparison(
            benchmark_id, base.run_id, candidate.run_id, False, (rate,),
            summary_metrics, (),
        )  # fmt: skip
    passed_a, passed_b = epochs
    comparison = compare(
        passed_a,
        passed_b,
        metric=PASS_RATE,
        higher_is_better=_higher(PASS_RATE),
        margin=threshold(PASS_RATE),
        reducer=MEAN,
    )
    return BenchmarkComparison(
        benchmark_id,
        base.run_id,
        candidate.run_id,
        True,
        (comparison,),
        summary_metrics,
        tuple(flips(passed_a, passed_b)),
    )


def stat_gate_from_counts(
    plain: GateVerdict,
    runs: Mapping[tuple[str, str], tuple[RunSummary, Epochs | None]],
) -> StatGateVerdict:
    """The statistical gate of run-against-run ``plain`` (no snapshot):
    ``runs`` holds each compared run by (benchmark id, run id) with its
    pass/fail ``Epochs`` (None: the run has no case results)."""
    benchmarks: list[BenchmarkComparison] = []
    for delta in plain.deltas:
        base, base_epochs = runs[(delta.benchmark_id, delta.base_run_id)]
        candidate, candidate_epochs = runs[(delta.benchmark_id, delta.candidate_run_id)]
        paired = (
            (base_epochs, candidate_epochs)
            if base_epochs is not None and candidate_epochs is not None
            else None
        )
        benchmarks.append(_benchmark(delta.benchmark_id, base, candidate, paired))
    return stat_verdict(
        plain, benchmarks, snapshot=None, margin=None, reducer_name=MEAN.name
    )
