"""Canonical example documents: of the benchmark formats (the eval-store contract) a
pack
manifest, a run summary, a shadow recall record and a baseline snapshot, and
a scenario suite line (the stream contract); each valid as built, with keyword
overrides for what a caller varies.

One place for them, shared by the tests, the demo data and the benchmarks,
so a change of a format changes its examples once. Pure: plain dicts in
camelCase as they go on the wire and on disk; importable without Django.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

DAY = "2026-03-06"


def example_manifest(
    benchmark_id: str = "ama-memory",
    *,
    cases: int | Sequence[Mapping[str, Any]] = 2,
    title: str | None = None,
    tags: Sequence[str] | None = ("trajectory",),
    **extra: Any,
) -> dict[str, Any]:
    """A pack manifest; ``cases`` is a count (``case-<n>`` / ``prompt <n>``)
    or the case objects themselves; ``tags=None`` leaves the key out."""
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "benchmarkId": benchmark_id,
        "title": title if title is not None else f"{benchmark_id} title",
    }
    if tags is not None:
        document["tags"] = list(tags)
    document["cases"] = (
        [{"id": f"case-{n}", "prompt": f"prompt {n}"} for n in range(cases)]
        if isinstance(cases, int)
        else [dict(case) for case in cases]
    )
    document.update(extra)
    return document


def example_run_summary(
    run_id: str,
    *,
    benchmark_id: str = "ama-memory",
    passed: int = 1,
    total: int = 2,
    hour: int = 10,
    metrics: Mapping[str, float] | None = None,
    results: Mapping[str, bool] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A completed run summary started at ``hour`` on ``DAY``. With
    ``results`` (case id -> passed) the counts come from them and the
    summary carries its case results."""
    if results is not None:
        passed, total = sum(results.values()), len(results)
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": f"{DAY}T{hour:02d}:00:00.000Z",
        "completedAt": f"{DAY}T{hour:02d}:02:00.000Z",
        "totalCases": total,
        "passedCases": passed,
        "failedCases": total - passed,
    }
    if metrics is not None:
        document["metrics"] = dict(metrics)
    document.update(extra)
    if results is not None:
        document["caseResults"] = [
            {"caseId": case_id, "passed": ok, "durationMs": 900 + 10 * index}
            for index, (case_id, ok) in enumerate(results.items())
        ]
    return document


def example_shadow_record(trace_id: str, **extra: Any) -> dict[str, Any]:
    """A shadow recall record (hashes and lengths only, never raw text)."""
    return {
        "schemaVersion": 1,
        "traceId": trace_id,
        "recordedAt": f"{DAY}T10:03:00.000Z",
        "sessionKey": "agent:main",
        "promptHash": "abc123",
        "promptLength": 42,
        "retrievalQueryHash": "def456",
        "retrievalQueryLength": 42,
        "recallMode": "full",
        "recallResultLimit": 4,
        "source": "hot_qmd",
        "recalledMemoryCount": 2,
        "injected": True,
        "contextChars": 240,
        "memoryIds": ["mem-1", "mem-2"],
        "durationMs": 22,
        **extra,
    }


def example_snapshot(
    snapshot_id: str = "required-main",
    *,
    benchmarks: Sequence[Mapping[str, Any]] = (
        {"benchmarkId": "ama-memory", "runId": "run-1", "passRate": 0.5},
    ),
    **extra: Any,
) -> dict[str, Any]:
    """A baseline snapshot document with one entry per benchmark."""
    return {
        "schemaVersion": 1,
        "snapshotId": snapshot_id,
        "createdAt": f"{DAY}T12:00:00.000Z",
        "sourceRootDir": "ci",
        "benchmarkCount": len(benchmarks),
        "benchmarks": [dict(entry) for entry in benchmarks],
        **extra,
    }


def example_scenario(scenario_id: str = "s1", **overrides: Any) -> dict[str, Any]:
    """One scenario of a suite: a calm, stable frame where acting is
    discouraged; top-level keys of ``overrides`` replace the example's."""
    document: dict[str, Any] = {
        "scenario_id": scenario_id,
        "stimulus": {
            "kind": "low_stimulus_stable",
            "strength": 0.1,
            "action_affordance": "discouraged",
        },
        "frame": {
            "facts": {
                "bot": {
                    "position": {"x": 1.5, "y": 64, "z": -3},
                    "health": 20,
                    "hunger": 18,
                    "inventorySummary": [{"item": "bread", "count": 2}],
                    "timeOfDay": "day",
                },
                "world": {
                    "biome": "plains",
                    "nearbyEntities": [{"kind": "cow", "count": 1, "distanceMin": 7.0}],
                },
            }
        },
        "oracle": {"oracle_version": "v1"},
    }
    document.update(overrides)
    return document


def example_suite_line(scenario_id: str = "s1", **overrides: Any) -> str:
    """``example_scenario`` as one line of a JSONL suite (no newline)."""
    return json.dumps(example_scenario(scenario_id, **overrides))
