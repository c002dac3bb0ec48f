"""Export of the database as an on-disk eval store.

The on-disk eval store (``benchmarks/<id>/manifest.json``, ``runs/<id>.json``,
``shadow/YYYY-MM-DD/<traceId>.json``, ``baselines/<id>.json``) is an
import/export format of the database. Export writes every pack, run summary,
shadow record and snapshot with the core's canonical bytes
(``evals.core.store``), so the same database always exports the same files;
files already in the directory under other names are left alone. Logs
``[Eval] eval_store_exported ...``. Import: ``evals.services.store_import``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from core.errors import SchemaInvalid, SchemaProblem
from evals.core.archive import MANIFEST_NAME, UnsafeArchive
from evals.core.baselines import validate_baseline_snapshot
from evals.core.formats_types import (
    BaselineSnapshot as SnapshotDocument,
)
from evals.core.formats_types import (
    Manifest,
)
from evals.core.packs import validate_manifest
from evals.core.shadow import validate_shadow_record
from evals.core.store import InvalidItem, ItemCounts, StoredItem, StoreKind
from evals.core.store_staging import publish, staging_folder
from evals.core.store_writer import EvalStore
from evals.models import BaselineSnapshot, Benchmark, Run, ShadowRecord
from evals.services.benchmark_records import run_items
from evals.services.pack_files import pack_file_contents

logger = logging.getLogger(__name__)

# rootDir of reports and verdicts read from the database.
DATABASE_ROOT = "database"


def manifest_items() -> tuple[list[StoredItem[Manifest]], list[InvalidItem]]:
    valid: list[StoredItem[Manifest]] = []
    invalid: list[InvalidItem] = []
    packs = Benchmark.objects.filter(kind=Benchmark.Kind.PACK).order_by("benchmark_id")
    for benchmark_id, manifest in packs.values_list("benchmark_id", "manifest"):
        if not manifest:  # a placeholder made by an import of runs
            continue
        path = f"benchmarks/{benchmark_id}/{MANIFEST_NAME}"
        try:
            # Stored packs passed the red-team flag when they came in.
            valid.append(
                StoredItem(
                    path, validate_manifest(manifest, memory_red_team_enabled=True)
                )
            )
        except SchemaInvalid as error:
            invalid.append(InvalidItem(path, error.problems))
    return valid, invalid


def baseline_items() -> tuple[list[StoredItem[SnapshotDocument]], list[InvalidItem]]:
    valid: list[StoredItem[SnapshotDocument]] = []
    invalid: list[InvalidItem] = []
    rows = BaselineSnapshot.objects.order_by("snapshot_id")
    for snapshot_id, document in rows.values_list("snapshot_id", "document"):
        path = f"{StoreKind.BASELINES.value}/{snapshot_id}.json"
        try:
            valid.append(StoredItem(path, validate_baseline_snapshot(document)))
        except SchemaInvalid as error:
            invalid.append(InvalidItem(path, error.problems))
    return valid, invalid


@dataclass(frozen=True, slots=True)
class ExportResult:
    root: Path
    counts: ItemCounts
    # Database rows whose document does not validate (not written).
    skipped: tuple[InvalidItem, ...] = ()


def eval_store_export(*, root: Path) -> ExportResult:
    """Write the database's packs, runs, shadow records and snapshots under
    ``root`` in the canonical layout and bytes (see the module docstring).

    Harness runs are exported like any other run. A row whose document no
    longer validates is skipped and listed. Logs ``[Eval]
    eval_store_exported root=<dir> benchmarks=<n> runs=<n> shadows=<n>
    baselines=<n> skipped=<n>``.
    """
    # Everything is written beside the root first: a failure half-way leaves
    # the root as it was.
    with staging_folder(root) as staging:
        store = EvalStore(staging)
        skipped: list[InvalidItem] = []
        manifests, invalid_manifests = manifest_items()
        skipped.extend(invalid_manifests)
        owners = {
            b.benchmark_id: b
            for b in Benchmark.objects.filter(kind=Benchmark.Kind.PACK).only(
                "pk", "benchmark_id"
            )
        }
        packs = len(manifests)
        for stored in manifests:
            manifest = stored.item
            owner = owners.get(manifest.benchmark_id)
            extra = pack_file_contents(benchmark=owner) if owner else {}
            try:
                store.write_pack(manifest, extra, force=True)
            except UnsafeArchive as error:
                problem = SchemaProblem("$.files", error.code, error.message)
                skipped.append(InvalidItem(stored.path, (problem,)))
                packs -= 1
        rows = Run.objects.exclude(summary={}).order_by("run_id")
        valid_runs, invalid_runs = run_items(
            rows.values_list("run_id", "summary").iterator(chunk_size=2000)
        )
        skipped.extend(invalid_runs)
        places = dict(
            Run.objects.exclude(store_path="").values_list("run_id", "store_path")
        )
        for item in valid_runs:
            store.write_run(item.item, relative=places.get(item.item.run_id))
        runs = len(valid_runs)
        shadows = 0
        documents = ShadowRecord.objects.order_by("trace_id").values_list(
            "trace_id", "document"
        )
        for trace_id, document in documents.iterator(chunk_size=2000):
            try:
                store.write_shadow(validate_shadow_record(document))
            except SchemaInvalid as error:
                skipped.append(InvalidItem(f"shadow/{trace_id}.json", error.problems))
                continue
            shadows += 1
        baselines, invalid_baselines = baseline_items()
        skipped.extend(invalid_baselines)
        for snapshot in baselines:
            store.write_baseline(snapshot.item)
        publish(staging, root)
    counts = ItemCounts(
        benchmarks=packs,
        runs=runs,
        shadows=shadows,
        baselines=len(baselines),
    )
    logger.info(
        "[Eval] eval_store_exported root=%s benchmarks=%d runs=%d shadows=%d "
        "baselines=%d skipped=%d",
        root,
        counts.benchmarks,
        counts.runs,
        counts.shadows,
        counts.baselines,
        len(skipped),
        extra={"root": str(root), **counts.to_wire()},
    )
    return ExportResult(root, counts, tuple(skipped))
