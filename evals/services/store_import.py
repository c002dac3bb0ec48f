"""Import of an on-disk eval store into the database (export:
``evals.services.store_export``), with the core's reader
(``evals.core.store``).

- Import validates the whole store first. Invalid files refuse the import
  (unless ``skip_invalid``), a stored document with different content under
  the same id refuses it (unless ``force``), and then everything is written
  in one transaction: a refused import writes nothing. Runs of a benchmark
  the database does not know create a placeholder benchmark (a suite when
  ``<id>.jsonl`` is in ``EVALS_SUITES_DIR``, else a pack with no manifest,
  which a later pack upload fills in).

Logs ``[Eval] eval_store_imported ...``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.audit import COMMAND_LINE_ORIGIN, Action, audit_record, command_line_actor
from core.errors import Conflict, SchemaProblem
from evals.core.archive import MANIFEST_NAME
from evals.core.blobs import FileRef
from evals.core.formats_types import (
    BaselineSnapshot as SnapshotDocument,
)
from evals.core.formats_types import (
    Manifest,
    RunSummary,
)
from evals.core.formats_types import (
    ShadowRecord as ShadowDocument,
)
from evals.core.packs import read_pack_files
from evals.core.store import InvalidItem, ItemCounts, StoreContents, StoredItem
from evals.core.store_reader import load_store
from evals.models import BaselineSnapshot, Benchmark, CaseResult, Run, ShadowRecord
from evals.services.baselines import baseline_fields
from evals.services.benchmark_records import (
    case_rows,
    run_fields,
    same_document,
    stored_documents,
)
from evals.services.benchmarks import (
    LOOKUP_CHUNK,
    is_same_pack,
    pack_conflict,
    pack_fields,
)
from evals.services.columns import unstorable_items
from evals.services.features import harness_flags
from evals.services.pack_files import (
    PackFileWrites,
    pack_files_set,
    pack_files_sweep,
    refs_of,
)
from evals.services.shadow_records import shadow_row

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ImportCounts:
    created: ItemCounts
    replaced: ItemCounts
    unchanged: ItemCounts


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import did; ``written`` is False when it was refused."""

    root: Path
    written: bool
    invalid: tuple[InvalidItem, ...] = ()
    counts: ImportCounts | None = None
    placeholders: tuple[str, ...] = ()


class StoreConflict(Conflict):
    """Documents in the store differ from stored ones under the same ids."""

    code = "store_conflict"


@dataclass(slots=True)
class _Plan:
    """What an import will write, decided before anything is written."""

    packs: list[tuple[Manifest, dict[str, bytes], dict[str, Any]]] = field(
        default_factory=list
    )
    runs: list[RunSummary] = field(default_factory=list)
    shadows: list[ShadowDocument] = field(default_factory=list)
    baselines: list[SnapshotDocument] = field(default_factory=list)
    replace_runs: set[str] = field(default_factory=set)
    # Where each run's summary sat in the store (relative to its root).
    run_paths: dict[str, str] = field(default_factory=dict)
    replace_shadows: set[str] = field(default_factory=set)
    replace_baselines: set[str] = field(default_factory=set)
    conflicts: list[str] = field(default_factory=list)
    # What --force replaces that the audit log records: (action, target
    # type, id, why).
    audited: list[tuple[str, str, str, str]] = field(default_factory=list)
    created: dict[str, int] = field(default_factory=dict)
    replaced: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)

    def count(self, outcome: dict[str, int], kind: str) -> None:
        outcome[kind] = outcome.get(kind, 0) + 1


def _pack_extra_files(root: Path, manifest_path: str) -> dict[str, bytes]:
    """The pack's files beside its manifest, less nested packs' folders."""
    directory = root / Path(manifest_path).parent
    files = read_pack_files(directory)
    nested = {
        path.rsplit("/", 1)[0] + "/"
        for path in files
        if path.endswith("/" + MANIFEST_NAME)
    }
    return {
        path: content
        for path, content in files.items()
        if path != MANIFEST_NAME and not any(path.startswith(n) for n in nested)
    }


def _plan_import(contents: StoreContents, root: Path, force: bool) -> _Plan:
    plan = _Plan()
    packs = {
        b.benchmark_id: b
        for b in Benchmark.objects.filter(
            benchmark_id__in=[s.item.benchmark_id for s in contents.manifests]
        )
    }
    for stored in contents.manifests:
        manifest = stored.item
        extra = _pack_extra_files(root, stored.path)
        fields = pack_fields(manifest, refs_of(extra))
        existing = packs.get(manifest.benchmark_id)
        if existing is None or not existing.manifest:
            plan.count(plan.created, "benchmarks")
        elif is_same_pack(existing, fields):
            plan.count(plan.unchanged, "benchmarks")
            continue
        else:
            reason = pack_conflict(existing, fields)
            if reason is not None and (
                existing.kind != Benchmark.Kind.PACK or not force
            ):
                plan.conflicts.append(f"{stored.path}: {reason}")
                continue
            if reason is not None:
                plan.audited.append(
                    (Action.PACK_REPLACE, "pack", manifest.benchmark_id, reason)
                )
            plan.count(plan.replaced, "benchmarks")
        plan.packs.append((manifest, extra, fields))

    def decide(
        kind: str,
        items: Sequence[StoredItem[Any]],
        stored: Mapping[str, Any],
        key: Any,
        target: list[Any],
        replace: set[str],
    ) -> None:
        for item in items:
            wire = item.item.to_wire()
            identifier = key(item.item)
            if identifier not in stored:
                plan.count(plan.created, kind)
            elif same_document(stored[identifier], wire):
                plan.count(plan.unchanged, kind)
                continue
            elif force:
                plan.count(plan.replaced, kind)
                replace.add(identifier)
            else:
                plan.conflicts.append(
                    f"{item.path}: {identifier} already exists with different content"
                )
                continue
            target.append(item.item)

    run_ids = [s.item.run_id for s in contents.runs]
    plan.run_paths = {s.item.run_id: s.path for s in contents.runs}
    decide(
        "runs",
        contents.runs,
        stored_documents(Run, "run_id", run_ids, "summary"),
        lambda run: run.run_id,
        plan.runs,
        plan.replace_runs,
    )
    trace_ids = [s.item.trace_id for s in contents.shadows]
    decide(
        "shadows",
        contents.shadows,
        stored_documents(ShadowRecord, "trace_id", trace_ids, "document"),
        lambda record: record.trace_id,
        plan.shadows,
        plan.replace_shadows,
    )
    snapshot_ids = [s.item.snapshot_id for s in contents.baselines]
    decide(
        "baselines",
        contents.baselines,
        stored_documents(BaselineSnapshot, "snapshot_id", snapshot_ids, "document"),
        lambda snapshot: snapshot.snapshot_id,
        plan.baselines,
        plan.replace_baselines,
    )
    plan.audited += [
        (Action.BASELINE_REPLACE, "baseline", snapshot_id, "imported with --force")
        for snapshot_id in sorted(plan.replace_baselines)
    ]
    return plan


def _duplicates(contents: StoreContents) -> list[InvalidItem]:
    """A second file of one kind carrying an id already seen: not imported."""
    found: list[InvalidItem] = []
    for items, key, field_name in (
        (contents.manifests, lambda m: m.benchmark_id, "benchmarkId"),
        (contents.runs, lambda r: r.run_id, "runId"),
        (contents.shadows, lambda s: s.trace_id, "traceId"),
        (contents.baselines, lambda b: b.snapshot_id, "snapshotId"),
    ):
        first: dict[str, str] = {}
        for stored in items:
            identifier = key(stored.item)
            if identifier in first:
                found.append(
                    InvalidItem(
                        stored.path,
                        (
                            SchemaProblem(
                                f"$.{field_name}",
                                "duplicate",
                                f"{field_name} {identifier} is also in "
                                f"{first[identifier]}",
                            ),
                        ),
                    )
                )
            else:
                first[identifier] = stored.path
    return found


def _placeholder(benchmark_id: str, total_cases: int) -> Benchmark:
    suite = Path(settings.EVALS_SUITES_DIR) / f"{benchmark_id}.jsonl"
    if suite.is_file():
        return Benchmark(
            benchmark_id=benchmark_id,
            kind=Benchmark.Kind.SUITE,
            title=benchmark_id,
            suite_path=str(suite),
            case_count=total_cases,
        )
    return Benchmark(
        benchmark_id=benchmark_id,
        kind=Benchmark.Kind.PACK,
        title=benchmark_id,
        case_count=total_cases,
    )


def eval_store_import(
    *, root: Path, force: bool = False, skip_invalid: bool = False
) -> ImportResult:
    """Import an on-disk eval store into the database (module docstring).

    Raises ``StoreUnreadable`` for a missing directory, ``UnsafeArchive``
    for a pack folder holding a link, and ``StoreConflict`` (nothing
    written) listing every document that differs from the stored one under
    its id when ``force`` is off. With invalid files and no
    ``skip_invalid`` the result has ``written=False`` and the problems.
    Logs ``[Eval] eval_store_imported root=<dir> created=<n> replaced=<n>
    unchanged=<n> invalid=<n>``.
    """
    flags = harness_flags()
    contents = load_store(
        root, memory_red_team_enabled=flags.memory_red_team_bench_enabled
    )
    invalid = (
        list(contents.invalid_manifests)
        + list(contents.invalid_runs)
        + list(contents.invalid_shadows)
        + list(contents.invalid_baselines)
        + _duplicates(contents)
        + unstorable_items(contents)
    )
    invalid.sort(key=lambda item: item.path)
    if invalid and not skip_invalid:
        return ImportResult(root, False, tuple(invalid))
    if invalid:
        contents = _without(contents, {item.path for item in invalid})
    plan = _plan_import(contents, root, force)
    if plan.conflicts:
        raise StoreConflict(
            f"{len(plan.conflicts)} document(s) differ from the stored ones "
            "(import with --force to replace them)",
            details={"conflicts": plan.conflicts},
        )
    # Pack files go to the store first; what the import does not end up
    # referring to (it failed, or a replaced pack's files) is removed again.
    with PackFileWrites() as writes:
        stored = [writes.put_files(extra) for _manifest, extra, _fields in plan.packs]
        placeholders, dropped = _write_plan(plan, stored)
    pack_files_sweep(dropped)
    counts = ImportCounts(
        created=ItemCounts(**plan.created),
        replaced=ItemCounts(**plan.replaced),
        unchanged=ItemCounts(**plan.unchanged),
    )
    logger.info(
        "[Eval] eval_store_imported root=%s created=%d replaced=%d unchanged=%d "
        "invalid=%d",
        root,
        counts.created.total,
        counts.replaced.total,
        counts.unchanged.total,
        len(invalid),
        extra={"root": str(root)},
    )
    return ImportResult(root, True, tuple(invalid), counts, placeholders)


def _without(contents: StoreContents, paths: set[str]) -> StoreContents:
    return StoreContents(
        root=contents.root,
        kinds=contents.kinds,
        valid_counts=contents.valid_counts,
        manifests=tuple(s for s in contents.manifests if s.path not in paths),
        runs=tuple(s for s in contents.runs if s.path not in paths),
        shadows=tuple(s for s in contents.shadows if s.path not in paths),
        baselines=tuple(s for s in contents.baselines if s.path not in paths),
    )


def _chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    return [
        ids[start : start + LOOKUP_CHUNK] for start in range(0, len(ids), LOOKUP_CHUNK)
    ]


def _store_path(run_id: str, path: str | None) -> str:
    """The run's path in its store when it is not the default one."""
    if path is None or path == f"runs/{run_id}.json":
        return ""
    return path


def _write_plan(
    plan: _Plan, stored: Sequence[Mapping[str, FileRef]]
) -> tuple[tuple[str, ...], set[str]]:
    placeholders: list[str] = []
    dropped: set[str] = set()
    with transaction.atomic():
        for (manifest, _extra, fields), refs in zip(plan.packs, stored, strict=True):
            pack, _ = Benchmark.objects.update_or_create(
                benchmark_id=manifest.benchmark_id, defaults=fields
            )
            dropped |= pack_files_set(benchmark=pack, refs=refs)
        wanted = sorted({run.benchmark_id for run in plan.runs})
        benchmarks = {
            b.benchmark_id: b for b in Benchmark.objects.filter(benchmark_id__in=wanted)
        }
        for benchmark_id in wanted:
            if benchmark_id not in benchmarks:
                total = max(
                    r.total_cases for r in plan.runs if r.benchmark_id == benchmark_id
                )
                benchmark = _placeholder(benchmark_id, total)
                benchmark.save()
                benchmarks[benchmark_id] = benchmark
                placeholders.append(benchmark_id)
        for chunk in _chunks(sorted(plan.replace_runs)):
            Run.objects.filter(run_id__in=chunk).delete()
        new_runs = [
            Run(
                run_id=run.run_id,
                benchmark=benchmarks[run.benchmark_id],
                source=Run.Source.IMPORT,
                store_path=_store_path(run.run_id, plan.run_paths.get(run.run_id)),
                **run_fields(run),
            )
            for run in plan.runs
        ]
        Run.objects.bulk_create(new_runs, batch_size=LOOKUP_CHUNK)
        with_cases = [run for run in plan.runs if run.case_results]
        if with_cases:
            saved: dict[str, int] = {}
            for chunk in _chunks([run.run_id for run in with_cases]):
                saved.update(
                    Run.objects.filter(run_id__in=chunk).values_list("run_id", "pk")
                )
            rows: list[CaseResult] = []
            for run in with_cases:
                rows.extend(case_rows(Run(pk=saved[run.run_id]), run))
            CaseResult.objects.bulk_create(rows, batch_size=LOOKUP_CHUNK)
        for chunk in _chunks(sorted(plan.replace_shadows)):
            ShadowRecord.objects.filter(trace_id__in=chunk).delete()
        ShadowRecord.objects.bulk_create(
            [shadow_row(record) for record in plan.shadows], batch_size=LOOKUP_CHUNK
        )
        for snapshot in plan.baselines:
            BaselineSnapshot.objects.update_or_create(
                snapshot_id=snapshot.snapshot_id, defaults=baseline_fields(snapshot)
            )
        for action, target_type, target_id, why in plan.audited:
            audit_record(
                action=action,
                target_type=target_type,
                target_id=target_id,
                target_label=target_id,
                actor=command_line_actor(),
                origin=COMMAND_LINE_ORIGIN,
                details={"why": why, "by": "eval_store_import --force"},
            )
    return tuple(placeholders), dropped
