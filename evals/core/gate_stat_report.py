"""The statistical gate's verdict (``--stat``) as its two reports: the JSON
document (``--json``) and the markdown a CI job prints. Numbers in the
markdown use the gate's format (``format_number``); the JSON keeps full
values, with ``null`` where a figure does not exist (fewer than 2 pairs)."""

from __future__ import annotations

import math
from typing import Any

from evals.core.gate import format_number
from evals.core.gate_stat import BenchmarkComparison, StatGateVerdict
from evals.core.stats_paired import PairedComparison, Verdict


def _num(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _shown(value: float) -> str:
    return format_number(value) if math.isfinite(value) else "n/a"


def _comparison_to_json(c: PairedComparison) -> dict[str, Any]:
    return {
        "metric": c.metric,
        "direction": "higher_is_better" if c.higher_is_better else "lower_is_better",
        "margin": c.margin,
        "n": c.n,
        "k": c.k,
        "base": _num(c.base_mean),
        "candidate": _num(c.candidate_mean),
        "delta": _num(c.delta),
        "standardError": _num(c.se),
        "interval": [_num(c.interval.low), _num(c.interval.high)],
        "intervalMethod": c.interval.method,
        "minimumDetectableEffect": _num(c.mde),
        "pValue": c.p_value,
        "pValueAdjusted": c.p_adjusted,
        "mcnemar": None
        if c.mcnemar is None
        else {"b": c.mcnemar.b, "c": c.mcnemar.c, "pValue": c.mcnemar.p_value},
        "verdict": c.verdict.value,
        "underpowered": c.underpowered,
        "onlyBase": list(c.only_base),
        "onlyCandidate": list(c.only_candidate),
    }


def _benchmark_to_json(b: BenchmarkComparison) -> dict[str, Any]:
    return {
        "benchmarkId": b.benchmark_id,
        "baseRunId": b.base_run_id,
        "candidateRunId": b.candidate_run_id,
        "paired": b.paired,
        "comparisons": [_comparison_to_json(c) for c in b.comparisons],
        "notJudged": list(b.not_judged),
        "flips": [
            {"scenario": f.scenario, "toFail": f.to_fail, "toPass": f.to_pass}
            for f in b.flips
        ],
    }


def stat_verdict_to_json(verdict: StatGateVerdict) -> dict[str, Any]:
    """The machine-readable report of ``--stat`` (camelCase; key order fixed)."""
    snapshot = verdict.snapshot
    return {
        "passed": verdict.passed,
        "mode": "stat",
        "baseline": "stores" if snapshot is None else "snapshot",
        "baseRootDir": verdict.base_root,
        "candidateRootDir": verdict.candidate_root,
        "baselineSnapshotId": snapshot.snapshot_id if snapshot else None,
        "baselineResolvedFrom": snapshot.resolved_from.value if snapshot else None,
        "margin": verdict.margin,
        "reducer": verdict.reducer,
        "confidence": 0.95,
        "adjustment": "holm",
        "comparisons": verdict.comparison_count,
        "structuralFailures": list(verdict.structural),
        "missingCandidateBenchmarks": list(verdict.missing_candidate_benchmarks),
        "regressions": _lines(verdict, Verdict.REGRESSION),
        "improvements": _lines(verdict, Verdict.IMPROVEMENT),
        "inconclusive": _lines(verdict, Verdict.INCONCLUSIVE),
        "underpowered": [_warning(bid, c) for bid, c in verdict.underpowered],
        "benchmarks": [_benchmark_to_json(b) for b in verdict.benchmarks],
    }


def _interval(c: PairedComparison) -> str:
    return f"[{_shown(c.interval.low)}, {_shown(c.interval.high)}]"


def _half_width(c: PairedComparison) -> str:
    if c.interval.method != "t" or not math.isfinite(c.interval.high):
        return ""
    return f" ± {format_number((c.interval.high - c.interval.low) / 2)}"


def _line(benchmark_id: str, c: PairedComparison) -> str:
    return (
        f"{benchmark_id} {c.metric} delta {_shown(c.delta)} {_interval(c)} "
        f"(n={c.n}, K={c.k}, margin {format_number(c.margin)})"
    )


def _lines(verdict: StatGateVerdict, which: Verdict) -> list[str]:
    return [_line(bid, c) for bid, c in verdict.with_verdict(which)]


def _warning(benchmark_id: str, c: PairedComparison) -> str:
    return (
        f"{benchmark_id} {c.metric} underpowered: MDE {_shown(c.mde)} > margin "
        f"{format_number(c.margin)}"
    )


def _detail(benchmark_id: str, c: PairedComparison) -> str:
    text = (
        f"{benchmark_id} {c.metric}: {_shown(c.base_mean)} -> "
        f"{_shown(c.candidate_mean)}, delta {_shown(c.delta)}{_half_width(c)} "
        f"{_interval(c)} ({c.interval.method}), n={c.n}, K={c.k}, "
        f"MDE {_shown(c.mde)}"
    )
    if c.mcnemar is not None:
        text += (
            f", McNemar b={c.mcnemar.b} c={c.mcnemar.c} "
            f"p={format_number(c.mcnemar.p_value)}"
        )
    return (
        f"{text}, p={format_number(c.p_value)} "
        f"(Holm {format_number(c.p_adjusted)}): {c.verdict.value}"
    )


def _bullets(lines: list[str], items: list[str]) -> None:
    lines.extend(f"- {item}" for item in items) if items else lines.append("- none")


def stat_verdict_to_markdown(verdict: StatGateVerdict) -> str:
    """The ``--stat`` report for a PR comment; ends with a newline."""
    snapshot = verdict.snapshot
    margin = (
        "each metric's registered threshold (passRate 0)"
        if verdict.margin is None
        else format_number(verdict.margin)
    )
    lines = [
        "# Eval Statistical Gate Report",
        "",
        f"- Passed: {'yes' if verdict.passed else 'no'}",
        "- Baseline: latest completed runs of the base store"
        if snapshot is None
        else f"- Baseline snapshot: {snapshot.snapshot_id} "
        f"(resolved from {snapshot.resolved_from.value})",
        f"- Base root: {verdict.base_root}",
        f"- Candidate root: {verdict.candidate_root}",
        f"- Benchmarks compared: {len(verdict.benchmarks)}",
        f"- Margin: {margin}",
        f"- Reducer: {verdict.reducer}",
        f"- Intervals: 95%; p-values Holm-adjusted across "
        f"{verdict.comparison_count} comparison(s)",
        "",
        "## Regressions",
    ]
    _bullets(lines, list(verdict.structural) + _lines(verdict, Verdict.REGRESSION))
    lines += ["", "## Improvements"]
    _bullets(lines, _lines(verdict, Verdict.IMPROVEMENT))
    lines += ["", "## Inconclusive"]
    _bullets(lines, _lines(verdict, Verdict.INCONCLUSIVE))
    lines += ["", "## Warnings"]
    _bullets(lines, [_warning(bid, c) for bid, c in verdict.underpowered])
    lines += ["", "## Comparisons"]
    _bullets(lines, [_detail(b.benchmark_id, c) for b in verdict.benchmarks
                     for c in b.comparisons])  # fmt: skip
    unpaired = [b.benchmark_id for b in verdict.benchmarks if not b.paired]
    not_judged = [
        f"{b.benchmark_id} {name}: no per-case values (the run summary holds "
        "only its mean)"
        for b in verdict.benchmarks
        for name in b.not_judged
    ]
    not_judged += [
        f"{bid} passRate: unpaired, from the summary counts (no caseResults)"
        for bid in unpaired
    ]
    if not_judged:
        lines += ["", "## Not judged per case"]
        _bullets(lines, not_judged)
    one_side = [
        f"{b.benchmark_id}: base only {', '.join(c.only_base) or '-'}; "
        f"candidate only {', '.join(c.only_candidate) or '-'}"
        for b in verdict.benchmarks
        for c in b.comparisons[:1]
        if c.only_base or c.only_candidate
    ]
    if one_side:
        lines += ["", "## Scenarios in one run only"]
        _bullets(lines, one_side)
    return "\n".join(lines) + "\n"
