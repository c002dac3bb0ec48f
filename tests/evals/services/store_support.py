"""What the eval store's import and export tests share: documents of the
four kinds, a database filled with all of them, a folder read back as bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.models import (
    BaselineSnapshot,
    Benchmark,
    CaseResult,
    Run,
    ShadowRecord,
)
from evals.services.baselines import baseline_snapshot_create
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import benchmark_pack_create
from evals.services.shadow_records import shadow_records_ingest


def manifest(benchmark_id: str, **extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "benchmarkId": benchmark_id,
        "title": f"{benchmark_id} — ünïcode title",
        "tags": ["b", "a"],
        "cases": [
            {"id": "case-0", "prompt": "p0", "expectedSignals": ["objective-state"]},
            {"id": "case-1", "prompt": "p1"},
        ],
        **extra,
    }


def run_summary(run_id: str, benchmark_id: str, hour: int, **extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": f"2026-03-06T{hour:02d}:00:00.000Z",
        "completedAt": f"2026-03-06T{hour:02d}:02:00.123456789Z",
        "totalCases": 2,
        "passedCases": 1,
        "failedCases": 1,
        "metrics": {"zeta": 1, "actionOutcomeScore": 0.333333333333},
        **extra,
    }


def shadow(trace_id: str, day: str) -> dict:
    return {
        "schemaVersion": 1,
        "traceId": trace_id,
        "recordedAt": f"{day}T23:59:59+02:00",
        "sessionKey": "agent:main",
        "promptHash": "abc123",
        "promptLength": 42,
        "retrievalQueryHash": "def456",
        "retrievalQueryLength": 42.5,
        "recallMode": "graph_mode",
        "recallResultLimit": 4,
        "source": "cold_fallback",
        "recalledMemoryCount": 0,
        "injected": False,
        "contextChars": 0,
        "memoryIds": [],
        "durationMs": 1.25,
    }


def tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def store_flags_on(settings: Any) -> Any:
    """The feature flags the store's four kinds need, turned on."""
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    return settings


def fill_all_kinds() -> None:
    """All four kinds, an extra pack file, case results and a suite's run
    (with ``store_flags_on``)."""
    benchmark_pack_create(document=manifest("ama"), extra_files={"data/x.bin": b"\0"})
    benchmark_pack_create(
        document=manifest(
            "poison",
            benchmarkType="memory-red-team",
            attackClass="provenance-spoofing",
            targetSurface="trust-zone-promotion",
        )
    )
    Benchmark.objects.create(benchmark_id="smoke", kind="suite", title="smoke")
    benchmark_run_record(
        document=run_summary(
            "r1",
            "ama",
            9,
            caseResults=[
                {"caseId": "case-0", "passed": True, "score": 0.9},
                {"caseId": "case-1", "passed": False, "durationMs": 3},
            ],
            notes="first",
            gitRef="main@1",
        )
    )
    benchmark_run_record(document=run_summary("r2", "poison", 10))
    benchmark_run_record(document=run_summary("r3", "smoke", 11))
    shadow_records_ingest(
        documents=[shadow("t1", "2026-03-06"), shadow("t2", "2026-03-07")]
    )
    baseline_snapshot_create(snapshot_id="required-main", notes="main")


def wipe() -> None:
    for model in (CaseResult, Run, ShadowRecord, BaselineSnapshot, Benchmark):
        model.objects.all().delete()
