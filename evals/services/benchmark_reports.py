"""Reports over the benchmark data: the status report and the gate.

``benchmark_status`` reports the database (or an on-disk eval store) with
the core's ``status_report``. The baseline delta report is the core's
stored-baseline gate with the database on both sides: the named snapshot as
baseline, the latest completed run of every benchmark as candidate.
``stores_gate`` is ``python -m evals.gate`` over two directories, for
``benchmark_ci_gate``. Every gate decided here logs the same ``[Eval]
ci_gate ...`` line as ``python -m evals.gate``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from core.errors import SchemaInvalid
from evals.cli import GateRequest, decide, log_gate
from evals.core.baselines import validate_baseline_snapshot
from evals.core.formats_types import RunSummary
from evals.core.formats_types import ShadowRecord as ShadowDocument
from evals.core.gate import BaselineInvalid, GateVerdict, evaluate_gate
from evals.core.metric_registry import MetricDirection
from evals.core.shadow import shadow_relative_path, validate_shadow_record
from evals.core.store import ALL_KINDS, ItemCounts, StoreContents, StoredItem, StoreKind
from evals.core.store_reader import load_store
from evals.core.store_status import status_report
from evals.models import Run, ShadowRecord
from evals.selectors.baselines import snapshot_get
from evals.services.benchmark_records import latest_completed_run_items, run_items
from evals.services.benchmarks import LOOKUP_CHUNK
from evals.services.features import harness_flags, require_delta_reporter
from evals.services.store_export import DATABASE_ROOT, baseline_items, manifest_items

logger = logging.getLogger(__name__)


def database_status() -> dict[str, Any]:
    """``benchmark_status``'s report of the database (``status_report``).

    Shadow records were validated when they came in and are never edited, so
    they are counted, not re-read; only the newest one is.
    """
    manifests, invalid_manifests = manifest_items()
    runs, invalid_runs = run_items(
        Run.objects.exclude(summary={})
        .order_by("run_id")
        .values_list("run_id", "summary")
    )
    baselines, invalid_baselines = baseline_items()
    newest = ShadowRecord.objects.order_by("-recorded_at", "-trace_id").first()
    shadows: tuple[StoredItem[ShadowDocument], ...] = ()
    if newest is not None:
        record = validate_shadow_record(newest.document)
        shadows = (StoredItem(shadow_relative_path(record), record),)
    contents = StoreContents(
        root=DATABASE_ROOT,
        kinds=ALL_KINDS,
        valid_counts=ItemCounts(
            benchmarks=len(manifests),
            runs=len(runs),
            shadows=ShadowRecord.objects.count(),
            baselines=len(baselines),
        ),
        manifests=tuple(manifests),
        runs=tuple(runs),
        shadows=shadows,
        baselines=tuple(baselines),
        invalid_manifests=tuple(invalid_manifests),
        invalid_runs=tuple(invalid_runs),
        invalid_baselines=tuple(invalid_baselines),
    )
    return status_report(contents, harness_flags())


def store_status(root: Path) -> dict[str, Any]:
    """``benchmark_status``'s report of an on-disk store."""
    flags = harness_flags()
    contents = load_store(
        root, memory_red_team_enabled=flags.memory_red_team_bench_enabled
    )
    return status_report(contents, flags)


# --- the delta report (stored-baseline gate over the database) ----------------


def baseline_delta_report(
    *,
    snapshot_id: str,
    min_cases: int | None = None,
    overrides: Mapping[str, MetricDirection] | None = None,
) -> GateVerdict:
    """The stored baseline ``snapshot_id`` against the latest completed run
    of every benchmark in the database (the eval-store contract's baseline delta
    reporter).

    Needs the delta-reporter flag (``FeatureDisabled``: "benchmark delta
    reporter is disabled"). Raises ``NotFound`` ("benchmark baseline
    snapshot not found: <id>") and ``BaselineInvalid`` for a stored snapshot
    that no longer validates. An invalid summary among the latest runs is an
    invalid candidate artifact and fails the gate. Logs the ci_gate line.
    """
    require_delta_reporter()
    row = snapshot_get(snapshot_id=snapshot_id)
    path = f"{StoreKind.BASELINES.value}/{snapshot_id}.json"
    try:
        snapshot = validate_baseline_snapshot(row.document)
    except SchemaInvalid:
        raise BaselineInvalid(
            f"stored baseline snapshot is invalid: {snapshot_id}",
            details={"snapshotId": snapshot_id},
        ) from None
    # The baseline's own runs, so that flipped cases can be listed.
    wanted = [entry.run_id for entry in snapshot.benchmarks]
    base_runs: list[StoredItem[RunSummary]] = []
    for start in range(0, len(wanted), LOOKUP_CHUNK):
        rows = Run.objects.filter(run_id__in=wanted[start : start + LOOKUP_CHUNK])
        valid, _ = run_items(rows.values_list("run_id", "summary"))
        base_runs.extend(valid)
    base = StoreContents(
        root=DATABASE_ROOT,
        kinds=frozenset({StoreKind.BASELINES, StoreKind.RUNS}),
        baselines=(StoredItem(path, snapshot),),
        runs=tuple(base_runs),
    )
    latest, invalid = latest_completed_run_items()
    candidate = StoreContents(
        root=DATABASE_ROOT,
        kinds=ALL_KINDS,
        latest_runs_only=True,
        runs=tuple(latest),
        invalid_runs=tuple(invalid),
    )
    verdict = evaluate_gate(
        base=base,
        candidate=candidate,
        snapshot_id=snapshot_id,
        min_cases=min_cases,
        overrides=overrides,
    )
    log_gate(verdict)
    return verdict


def stores_gate(
    *, request: GateRequest, executor: Executor | None = None
) -> GateVerdict:
    """``python -m evals.gate`` over two directories (no database involved):
    the same reading (``evals.cli.decide``) and the same ci_gate line."""
    verdict = decide(request, executor)
    log_gate(verdict)
    return verdict
