"""Baseline snapshots (the eval-store contract): validation and building one from runs.

Decides whether a baseline snapshot is valid, reporting every problem with
its JSON path and the contract's message (``schemaVersion must be 1``,
``benchmarkCount must match benchmarks.length``,
``benchmarks[i].passRate must be a number between 0 and 1``, ...), and what
snapshot the latest completed runs make: one entry per benchmark, sorted by
benchmarkId, with pass rate, metrics, gitRef and (beyond the seed) the case
count, never the raw cases.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.errors import SchemaProblem
from core.schemas import load_validator, validate
from evals.core.format_rules import (
    CASE_COUNT_LIMIT,
    NUMBER_MESSAGES,
    MessageTable,
    is_safe_path_segment,
    number_problems,
    parse_timestamp,
    put_optional,
    raise_if_problems,
    sorted_map,
    translate_problems,
)
from evals.core.formats_types import BaselineBenchmark, BaselineSnapshot, RunSummary
from evals.core.runs import latest_completed_runs

SCHEMA_NAME = "baseline_snapshot.v1.schema.json"

_NON_EMPTY = "{field} must be a non-empty string"
MESSAGES: MessageTable = {
    "$": "eval baseline snapshot must be an object",
    "$.schemaVersion": "schemaVersion must be 1",
    "$.snapshotId": _NON_EMPTY,
    "$.createdAt": _NON_EMPTY,
    "$.sourceRootDir": _NON_EMPTY,
    "$.notes": "{field} must be a string",
    "$.gitRef": "{field} must be a string",
    "$.benchmarkCount": {
        "*": "benchmarkCount must be a non-negative number",
        "multipleOf": "benchmarkCount must be a whole number",
    },
    "$.benchmarks": "benchmarks must be an array",
    "$.benchmarks[]": "{field} must be an object",
    "$.benchmarks[].benchmarkId": _NON_EMPTY,
    "$.benchmarks[].runId": _NON_EMPTY,
    "$.benchmarks[].completedAt": _NON_EMPTY,
    "$.benchmarks[].gitRef": "{field} must be a string",
    "$.benchmarks[].passRate": "{field} must be a number between 0 and 1",
    "$.benchmarks[].totalCases": {
        "*": "{field} must be a non-negative number",
        "multipleOf": "{field} must be a whole number",
        "maximum": f"{{field}} must be at most {CASE_COUNT_LIMIT}",
        "out_of_range": f"{{field}} must be at most {CASE_COUNT_LIMIT}",
    },
    "$.benchmarks[].metrics": "{field} must be an object of numbers",
    "$.benchmarks[].metrics.*": NUMBER_MESSAGES,
}
_MAP_PREFIXES = ("$.benchmarks[].metrics",)


def baseline_snapshot_problems(document: Any) -> list[SchemaProblem]:
    """Every problem of a baseline snapshot document, sorted (empty: valid)."""
    raw = validate(load_validator("evals.core", SCHEMA_NAME), document)
    raw.extend(number_problems(document))
    problems = translate_problems(
        raw,
        messages=MESSAGES,
        document_name="eval baseline snapshot",
        map_prefixes=_MAP_PREFIXES,
    )
    if not isinstance(document, dict):
        return problems
    bad = {problem.path for problem in problems}
    snapshot_id = document.get("snapshotId")
    if (
        "$.snapshotId" not in bad
        and isinstance(snapshot_id, str)
        and not is_safe_path_segment(snapshot_id)
    ):
        problems.append(
            SchemaProblem(
                "$.snapshotId",
                "unsafe_path_segment",
                "snapshotId must be a safe path segment",
            )
        )
    timestamps: list[tuple[str, Any]] = [("createdAt", document.get("createdAt"))]
    benchmarks = document.get("benchmarks")
    if isinstance(benchmarks, list):
        seen: set[str] = set()
        for index, entry in enumerate(benchmarks):
            if not isinstance(entry, dict):
                continue
            timestamps.append(
                (f"benchmarks[{index}].completedAt", entry.get("completedAt"))
            )
            benchmark_id = entry.get("benchmarkId")
            path = f"$.benchmarks[{index}].benchmarkId"
            if isinstance(benchmark_id, str) and path not in bad:
                if benchmark_id in seen:
                    problems.append(
                        SchemaProblem(
                            path,
                            "duplicate",
                            f"benchmarks[{index}].benchmarkId must be unique",
                        )
                    )
                seen.add(benchmark_id)
        count = document.get("benchmarkCount")
        if (
            "$.benchmarkCount" not in bad
            and "benchmarkCount" in document
            and count != len(benchmarks)
        ):
            problems.append(
                SchemaProblem(
                    "$.benchmarkCount",
                    "count_mismatch",
                    "benchmarkCount must match benchmarks.length",
                )
            )
    for field, value in timestamps:
        if (
            f"$.{field}" not in bad
            and isinstance(value, str)
            and parse_timestamp(value) is None
        ):
            problems.append(
                SchemaProblem(
                    f"$.{field}",
                    "invalid_timestamp",
                    f"{field} must be a valid ISO timestamp",
                )
            )
    return sorted(problems, key=lambda p: (p.path, p.code, p.message))


def validate_baseline_snapshot(document: Any) -> BaselineSnapshot:
    """Parse a baseline snapshot, raising ``SchemaInvalid`` with every problem.

    ``validate_baseline_snapshot(x).to_wire() == x`` for every valid ``x``.
    """
    raise_if_problems(baseline_snapshot_problems(document), "eval baseline snapshot")
    return BaselineSnapshot(
        snapshot_id=document["snapshotId"],
        created_at=document["createdAt"],
        source_root_dir=document["sourceRootDir"],
        benchmarks=tuple(
            BaselineBenchmark(
                benchmark_id=entry["benchmarkId"],
                run_id=entry["runId"],
                pass_rate=entry["passRate"],
                completed_at=entry.get("completedAt"),
                git_ref=entry.get("gitRef"),
                metrics=None
                if entry.get("metrics") is None
                else dict(entry["metrics"]),
                total_cases=None
                if entry.get("totalCases") is None
                else int(entry["totalCases"]),
            )
            for entry in document["benchmarks"]
        ),
        notes=document.get("notes"),
        git_ref=document.get("gitRef"),
    )


def snapshot_from_runs(
    runs: Iterable[RunSummary],
    *,
    snapshot_id: str,
    created_at: str,
    source_root_dir: str,
    notes: str | None = None,
    git_ref: str | None = None,
) -> BaselineSnapshot:
    """The snapshot of the latest completed run per benchmark.

    Built as a wire document and validated like any other snapshot, so a bad
    ``snapshot_id`` or ``created_at`` raises ``SchemaInvalid`` with the same
    messages. ``created_at`` comes in: this never reads the clock.
    """
    entries: list[dict[str, Any]] = []
    for benchmark_id, run in latest_completed_runs(runs).items():
        entry: dict[str, Any] = {"benchmarkId": benchmark_id, "runId": run.run_id}
        put_optional(entry, "completedAt", run.completed_at)
        put_optional(entry, "gitRef", run.git_ref)
        entry["passRate"] = run.pass_rate
        entry["totalCases"] = run.total_cases
        put_optional(entry, "metrics", sorted_map(run.metrics))
        entries.append(entry)
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "snapshotId": snapshot_id,
        "createdAt": created_at,
        "sourceRootDir": source_root_dir,
        "benchmarkCount": len(entries),
        "benchmarks": entries,
    }
    put_optional(document, "notes", notes)
    put_optional(document, "gitRef", git_ref)
    return validate_baseline_snapshot(document)
