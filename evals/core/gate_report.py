"""The gate's verdict as its two reports: the JSON document (``--json``, the
API) and the markdown a CI job prints and posts on a pull request. Same
verdict, same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evals.core.gate import BenchmarkDelta, GateVerdict, format_number
from evals.core.gate_budgets import budgets_to_json, budgets_to_markdown
from evals.core.store import InvalidCounts


def _delta_to_json(delta: BenchmarkDelta) -> dict[str, Any]:
    return {
        "benchmarkId": delta.benchmark_id,
        "baseRunId": delta.base_run_id,
        "candidateRunId": delta.candidate_run_id,
        "basePassRate": delta.base_pass_rate,
        "candidatePassRate": delta.candidate_pass_rate,
        "passRateDelta": delta.pass_rate_delta,
        "passRateOutcome": delta.pass_rate_outcome.value,
        "metricDeltas": {metric.name: metric.delta for metric in delta.metric_deltas},
        "metricOutcomes": {
            metric.name: metric.outcome.value for metric in delta.metric_deltas
        },
        "regressions": list(delta.regressions),
        "improvements": list(delta.improvements),
        "inconclusive": delta.inconclusive,
        "baseCases": delta.base_cases,
        "candidateCases": delta.candidate_cases,
        "casesFlippedToFail": list(delta.cases_flipped_to_fail),
        "casesFlippedToPass": list(delta.cases_flipped_to_pass),
    }


def verdict_to_json(verdict: GateVerdict) -> dict[str, Any]:
    """The machine-readable report (camelCase; key order is fixed; a
    ``budgets`` key only when budgets were asked)."""
    snapshot = verdict.snapshot
    document = {
        "passed": verdict.passed,
        "mode": "stores" if snapshot is None else "snapshot",
        "baseRootDir": verdict.base_root,
        "candidateRootDir": verdict.candidate_root,
        "baselineSnapshotId": snapshot.snapshot_id if snapshot else None,
        "baselineCreatedAt": snapshot.created_at if snapshot else None,
        "baselineSourceRootDir": snapshot.source_root_dir if snapshot else None,
        "baselineResolvedFrom": snapshot.resolved_from.value if snapshot else None,
        "comparedBenchmarks": verdict.compared_benchmarks,
        "missingCandidateBenchmarks": list(verdict.missing_candidate_benchmarks),
        "invalidArtifacts": {
            "base": verdict.invalid_base.to_wire() if verdict.invalid_base else None,
            "candidate": verdict.invalid_candidate.to_wire(),
        },
        "regressions": list(verdict.regressions),
        "improvements": list(verdict.improvements),
        "minCases": verdict.min_cases,
        "inconclusiveBenchmarks": list(verdict.inconclusive),
        "deltas": [_delta_to_json(delta) for delta in verdict.deltas],
    }
    if verdict.budgets is not None:
        document["budgets"] = budgets_to_json(verdict.budgets)
    return document


def _counts_line(label: str, counts: InvalidCounts) -> str:
    return (
        f"- Invalid {label} artifacts: benchmarks={counts.benchmarks}, "
        f"runs={counts.runs}, shadows={counts.shadows}, baselines={counts.baselines}"
    )


def _bullets(lines: list[str], items: list[str]) -> None:
    if items:
        lines.extend(f"- {item}" for item in items)
    else:
        lines.append("- none")


def verdict_to_markdown(verdict: GateVerdict) -> str:
    """The report for a PR comment; ends with a newline."""
    lines = [
        "# Eval Baseline Delta Report",
        "",
        f"- Passed: {'yes' if verdict.passed else 'no'}",
    ]
    snapshot = verdict.snapshot
    if snapshot is not None:
        lines += [
            f"- Baseline snapshot: {snapshot.snapshot_id} "
            f"(resolved from {snapshot.resolved_from.value})",
            f"- Baseline created: {snapshot.created_at}",
            f"- Baseline source root: {snapshot.source_root_dir}",
        ]
    else:
        lines.append("- Baseline: latest completed runs of the base store")
    lines += [
        f"- Base root: {verdict.base_root}",
        f"- Candidate root: {verdict.candidate_root}",
        f"- Benchmarks compared: {verdict.compared_benchmarks}",
    ]
    if verdict.missing_candidate_benchmarks:
        missing = ", ".join(verdict.missing_candidate_benchmarks)
        lines.append(f"- Missing candidate benchmarks: {missing}")
    lines.append(_counts_line("candidate", verdict.invalid_candidate))
    if verdict.invalid_base is not None:
        lines.append(_counts_line("base", verdict.invalid_base))
    if verdict.min_cases is not None:
        lines.append(f"- Minimum cases: {verdict.min_cases}")
    lines += ["", "## Regressions"]
    _bullets(lines, list(verdict.regressions))
    lines += ["", "## Improvements"]
    _bullets(lines, list(verdict.improvements))
    if verdict.min_cases is not None:
        lines += ["", "## Inconclusive"]
        _bullets(
            lines,
            [
                f"{d.benchmark_id}: fewer than {verdict.min_cases} cases "
                f"(base {d.base_cases if d.base_cases is not None else 'unknown'}, "
                f"candidate {d.candidate_cases})"
                for d in verdict.deltas
                if d.inconclusive
            ],
        )
    flips = verdict.flipped_cases
    if flips:
        lines += ["", "## Flipped Cases"]
        _bullets(
            lines,
            [
                f"{flip.benchmark_id} {flip.case_id}: "
                f"{'fail -> pass' if flip.to_passed else 'pass -> fail'}"
                for flip in flips
            ],
        )
    lines += ["", "## Benchmark Deltas"]
    entries: list[str] = []
    for delta in verdict.deltas:
        entry = (
            f"{delta.benchmark_id}: passRate {format_number(delta.base_pass_rate)} -> "
            f"{format_number(delta.candidate_pass_rate)} "
            f"(delta {format_number(delta.pass_rate_delta)})"
        )
        for metric in delta.metric_deltas:
            entry += (
                f"\n  - {metric.name} {format_number(metric.base)} -> "
                f"{format_number(metric.candidate)} "
                f"(delta {format_number(metric.delta)})"
            )
        entries.append(entry)
    _bullets(lines, entries)
    if verdict.budgets is not None:
        lines += budgets_to_markdown(verdict.budgets)
    return "\n".join(lines) + "\n"


def write_report_files(
    markdown: str,
    document: Any,
    *,
    json_path: Path | None,
    markdown_path: Path | None,
) -> str:
    """Write a gate's JSON and markdown reports where asked (folders made);
    returns the markdown. ``OSError`` when a file cannot be written."""
    for path, text in (
        (json_path, json.dumps(document, indent=2) + "\n"),
        (markdown_path, markdown),
    ):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return markdown
