"""What an eval store holds, as ``benchmark_status`` reports it, and a baseline
snapshot made from its latest completed runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from evals.core.baselines import snapshot_from_runs
from evals.core.format_rules import timestamp_key
from evals.core.formats_types import BaselineSnapshot, RunStatus
from evals.core.store import HarnessFlags, StoreContents


def _latest[T](items: Iterable[T], key: Callable[[T], Any]) -> T | None:
    best: T | None = None
    best_key: Any = None
    for item in items:
        item_key = key(item)
        if best is None or item_key > best_key:
            best, best_key = item, item_key
    return best


def status_report(contents: StoreContents, flags: HarnessFlags) -> dict[str, Any]:
    """The ``benchmark_status`` report of one store, camelCase, JSON-ready.

    Latest run: newest completedAt else startedAt (any status); latest shadow:
    newest recordedAt; latest baseline: newest createdAt; ties go to the
    greater id. Lists of tags, attack classes, etc. are sorted and unique.
    """
    manifests = [stored.item for stored in contents.manifests]
    red_team = [manifest for manifest in manifests if manifest.is_red_team]
    runs = contents.run_list()
    shadows = [stored.item for stored in contents.shadows]
    baselines = [stored.item for stored in contents.baselines]
    latest_run = _latest(runs, lambda run: (run.recency, run.run_id))
    latest_shadow = _latest(
        shadows, lambda record: (timestamp_key(record.recorded_at), record.trace_id)
    )
    latest_baseline = _latest(
        baselines,
        lambda snapshot: (timestamp_key(snapshot.created_at), snapshot.snapshot_id),
    )
    by_status = {status: 0 for status in RunStatus}
    for run in runs:
        by_status[run.status] += 1
    return {
        "enabled": flags.eval_harness_enabled,
        "shadowModeEnabled": flags.eval_shadow_mode_enabled,
        "memoryRedTeamBenchEnabled": flags.memory_red_team_bench_enabled,
        "deltaReporterEnabled": flags.delta_reporter_enabled,
        "rootDir": contents.root,
        "benchmarks": {
            "total": contents.valid_counts.benchmarks + len(contents.invalid_manifests),
            "valid": contents.valid_counts.benchmarks,
            "invalid": len(contents.invalid_manifests),
            "redTeam": len(red_team),
            "totalCases": sum(len(manifest.cases) for manifest in manifests),
            "attackClasses": sorted(
                {m.attack_class for m in red_team if m.attack_class}
            ),
            "targetSurfaces": sorted(
                {m.target_surface for m in red_team if m.target_surface}
            ),
            "tags": sorted({tag for m in manifests for tag in m.tags or ()}),
            "sourceLinks": sorted(
                {link for m in manifests for link in m.source_links or ()}
            ),
        },
        "runs": {
            "total": contents.valid_counts.runs + len(contents.invalid_runs),
            "invalid": len(contents.invalid_runs),
            **{status.value: by_status[status] for status in RunStatus},
            "latestRunId": latest_run.run_id if latest_run else None,
            "latestBenchmarkId": latest_run.benchmark_id if latest_run else None,
            "latestCompletedAt": latest_run.completed_at if latest_run else None,
        },
        "shadows": {
            "total": contents.valid_counts.shadows + len(contents.invalid_shadows),
            "invalid": len(contents.invalid_shadows),
            "latestTraceId": latest_shadow.trace_id if latest_shadow else None,
            "latestRecordedAt": latest_shadow.recorded_at if latest_shadow else None,
            "latestSessionKey": latest_shadow.session_key if latest_shadow else None,
        },
        "baselines": {
            "enabled": flags.baseline_snapshots_enabled,
            "total": contents.valid_counts.baselines + len(contents.invalid_baselines),
            "invalid": len(contents.invalid_baselines),
            "latestSnapshotId": latest_baseline.snapshot_id
            if latest_baseline
            else None,
            "latestCreatedAt": latest_baseline.created_at if latest_baseline else None,
            "latestBenchmarkCount": (
                latest_baseline.benchmark_count if latest_baseline else None
            ),
        },
        "latestRun": latest_run.to_wire() if latest_run else None,
        "latestShadow": latest_shadow.to_wire() if latest_shadow else None,
        "latestBaseline": latest_baseline.to_wire() if latest_baseline else None,
        "invalidBenchmarks": [item.to_wire() for item in contents.invalid_manifests],
        "invalidRuns": [item.to_wire() for item in contents.invalid_runs],
        "invalidShadows": [item.to_wire() for item in contents.invalid_shadows],
        "invalidBaselines": [item.to_wire() for item in contents.invalid_baselines],
    }


def snapshot_from_latest(
    contents: StoreContents,
    *,
    snapshot_id: str,
    created_at: str,
    source_root_dir: str | None = None,
    notes: str | None = None,
    git_ref: str | None = None,
) -> BaselineSnapshot:
    """A baseline snapshot of the store's latest completed run per benchmark.

    ``source_root_dir`` defaults to the store root as it was given. Raises
    ``SchemaInvalid`` for an unsafe ``snapshot_id`` or a bad ``created_at``.
    """
    return snapshot_from_runs(
        contents.run_list(),
        snapshot_id=snapshot_id,
        created_at=created_at,
        source_root_dir=source_root_dir
        if source_root_dir is not None
        else contents.root,
        notes=notes,
        git_ref=git_ref,
    )
