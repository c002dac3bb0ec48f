"""The on-disk eval store of seed 002: layout, reading, writing and status.

Layout under a root directory::

    benchmarks/<benchmarkId>/manifest.json   (+ the pack's extra files)
    runs/**/<runId>.json
    shadow/YYYY-MM-DD/<traceId>.json          (day = recordedAt[0:10])
    baselines/<snapshotId>.json

Reading finds manifests recursively under ``benchmarks/`` and every
``*.json`` under the other three folders. Each file is either a valid item
(with its path) or an invalid item (its path and every problem); one bad file
never hides the others. Symbolic links are reported as invalid, not followed,
so a store checked out from an untrusted branch cannot point the reader at
files outside it. Items are sorted by path, so the same tree always loads the
same way.

Writing is canonical and atomic: a document is ``to_wire()`` (fields in
schema order, maps with sorted keys) dumped with 2-space indentation,
non-ASCII kept, and one trailing newline, into a temporary file that then
replaces the target. The same document always gives the same bytes, and a
reader never sees half a file. Packs are written into a temporary folder and
swapped in whole.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from core.errors import Conflict, CoreError, SchemaInvalid, SchemaProblem
from evals.core.archive import MANIFEST_NAME, ArchiveRefusal, UnsafeArchive, member_path
from evals.core.baselines import snapshot_from_runs, validate_baseline_snapshot
from evals.core.formats_types import (
    BaselineSnapshot,
    Manifest,
    RunStatus,
    RunSummary,
    ShadowRecord,
    is_safe_path_segment,
    parse_json_document,
    timestamp_key,
)
from evals.core.packs import validate_manifest
from evals.core.runs import fast_valid as fast_valid_run
from evals.core.runs import (
    latest_completed_runs,
    run_summary_problems,
    validate_run_summary,
)
from evals.core.shadow import fast_valid as fast_valid_shadow
from evals.core.shadow import (
    shadow_record_problems,
    shadow_relative_path,
    validate_shadow_record,
)

__all__ = [
    "EvalStore",
    "HarnessFlags",
    "InvalidCounts",
    "InvalidItem",
    "ItemCounts",
    "StoreContents",
    "StoreKind",
    "StoreUnreadable",
    "StoredItem",
    "latest_completed_runs",
    "load_store",
    "snapshot_from_latest",
    "status_report",
    "store_json_bytes",
]

# Temporary names carry this marker; readers skip them.
TMP_MARKER = "~evalstore-tmp"
_CHUNK = 2000


class StoreKind(StrEnum):
    BENCHMARKS = "benchmarks"
    RUNS = "runs"
    SHADOWS = "shadow"
    BASELINES = "baselines"


ALL_KINDS = frozenset(StoreKind)


class StoreUnreadable(CoreError):
    """The store root is missing, not a directory, or cannot be listed."""

    code = "store_unreadable"


@dataclass(frozen=True, slots=True)
class StoredItem[T]:
    """A valid document and its path relative to the store root (POSIX)."""

    path: str
    item: T


@dataclass(frozen=True, slots=True)
class InvalidItem:
    """A file that is not a valid document, with every problem found."""

    path: str
    problems: tuple[SchemaProblem, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"path": self.path, "problems": [p.as_dict() for p in self.problems]}


@dataclass(frozen=True, slots=True)
class ItemCounts:
    """A number per kind of document (valid ones, or invalid ones)."""

    benchmarks: int = 0
    runs: int = 0
    shadows: int = 0
    baselines: int = 0

    @property
    def total(self) -> int:
        return self.benchmarks + self.runs + self.shadows + self.baselines

    def to_wire(self) -> dict[str, int]:
        return {
            "benchmarks": self.benchmarks,
            "runs": self.runs,
            "shadows": self.shadows,
            "baselines": self.baselines,
        }


InvalidCounts = ItemCounts


@dataclass(frozen=True, slots=True)
class StoreContents:
    """Everything read from one store root.

    ``kinds`` says what was read; for the kinds in ``counted_only`` every file
    was validated and counted (``valid_counts``) but valid items were not
    kept, so their tuple is empty by design. With ``latest_runs_only``,
    ``runs`` holds only the latest completed run of each benchmark.
    """

    root: str
    kinds: frozenset[StoreKind]
    counted_only: frozenset[StoreKind] = frozenset()
    latest_runs_only: bool = False
    valid_counts: ItemCounts = ItemCounts()
    manifests: tuple[StoredItem[Manifest], ...] = ()
    runs: tuple[StoredItem[RunSummary], ...] = ()
    shadows: tuple[StoredItem[ShadowRecord], ...] = ()
    baselines: tuple[StoredItem[BaselineSnapshot], ...] = ()
    invalid_manifests: tuple[InvalidItem, ...] = ()
    invalid_runs: tuple[InvalidItem, ...] = ()
    invalid_shadows: tuple[InvalidItem, ...] = ()
    invalid_baselines: tuple[InvalidItem, ...] = ()

    @property
    def invalid_counts(self) -> ItemCounts:
        return ItemCounts(
            benchmarks=len(self.invalid_manifests),
            runs=len(self.invalid_runs),
            shadows=len(self.invalid_shadows),
            baselines=len(self.invalid_baselines),
        )

    def run_list(self) -> list[RunSummary]:
        return [stored.item for stored in self.runs]


@dataclass(frozen=True, slots=True)
class HarnessFlags:
    """The seed's feature flags, all off by default."""

    eval_harness_enabled: bool = False
    eval_shadow_mode_enabled: bool = False
    baseline_snapshots_enabled: bool = False
    delta_reporter_enabled: bool = False
    memory_red_team_bench_enabled: bool = False


def store_json_bytes(document: Mapping[str, Any]) -> bytes:
    """The canonical on-disk bytes of a wire document (see module docstring)."""
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


# --- reading ------------------------------------------------------------------


def _scan(directory: str, only_name: str | None) -> list[str]:
    """Paths under ``directory`` (recursive): ``*.json`` or exactly ``only_name``.

    Links are listed too (so that they are reported); linked folders are not
    entered.
    """
    found: list[str] = []
    stack = [directory]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except FileNotFoundError:
            continue
        for entry in entries:
            if TMP_MARKER in entry.name:
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif (only_name is None and entry.name.endswith(".json")) or (
                entry.name == only_name
            ):
                found.append(entry.path)
    return found


def _validator(kind: StoreKind, memory_red_team_enabled: bool) -> Callable[[Any], Any]:
    if kind is StoreKind.BENCHMARKS:
        return lambda document: validate_manifest(
            document, memory_red_team_enabled=memory_red_team_enabled
        )
    if kind is StoreKind.RUNS:
        return validate_run_summary
    if kind is StoreKind.SHADOWS:
        return validate_shadow_record
    return validate_baseline_snapshot


def _checker(
    kind: StoreKind, memory_red_team_enabled: bool
) -> Callable[[Any], list[SchemaProblem]]:
    """Problems of a document without building it (for counted-only kinds)."""
    if kind is StoreKind.RUNS:
        return lambda document: (
            [] if fast_valid_run(document) else run_summary_problems(document)
        )
    if kind is StoreKind.SHADOWS:
        return lambda document: (
            [] if fast_valid_shadow(document) else shadow_record_problems(document)
        )
    build = _validator(kind, memory_red_team_enabled)

    def check(document: Any) -> list[SchemaProblem]:
        try:
            build(document)
        except SchemaInvalid as error:
            return list(error.problems)
        return []

    return check


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_READ_SIZE = 1 << 16


def _read_one(path: str) -> bytes:
    """The bytes of a store file; a link is a problem, never followed.

    ``O_NOFOLLOW`` refuses a final-component link atomically (ELOOP) without
    an extra ``lstat`` per file; where it does not exist, ``islink`` is used.
    """
    try:
        if not _NOFOLLOW and os.path.islink(path):
            raise OSError(errno.ELOOP, "link")
        descriptor = os.open(path, _OPEN_FLAGS)
        try:
            chunks = [os.read(descriptor, _READ_SIZE)]
            while len(chunks[-1]) == _READ_SIZE:
                chunks.append(os.read(descriptor, _READ_SIZE))
        finally:
            os.close(descriptor)
    except OSError as error:
        if error.errno == errno.ELOOP:
            problem = SchemaProblem("$", "link", "store files must not be links")
        else:
            problem = SchemaProblem(
                "$", "unreadable", f"cannot read file: {error.strerror}"
            )
        raise SchemaInvalid(problem.message, problems=[problem]) from None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


@dataclass(frozen=True, slots=True)
class _Job:
    root: str
    kind: StoreKind
    paths: tuple[str, ...]
    memory_red_team_enabled: bool
    keep: bool
    latest_only: bool = False


def _latest_stored_runs(
    items: Iterable[StoredItem[RunSummary]],
) -> list[StoredItem[RunSummary]]:
    """The latest completed run per benchmark, in path order.

    Same choice as ``latest_completed_runs`` (ties: greater runId, then the
    first path), so reducing per chunk and then overall loses nothing.
    """
    best: dict[str, tuple[Any, StoredItem[RunSummary]]] = {}
    for stored in items:
        run = stored.item
        if run.status is not RunStatus.COMPLETED:
            continue
        key = (run.recency, run.run_id)
        current = best.get(run.benchmark_id)
        if current is None or key > current[0]:
            best[run.benchmark_id] = (key, stored)
    return sorted((stored for _, stored in best.values()), key=lambda s: s.path)


@dataclass(frozen=True, slots=True)
class _ChunkResult:
    valid: tuple[StoredItem[Any], ...]
    invalid: tuple[InvalidItem, ...]
    valid_count: int


def _load_chunk(job: _Job) -> _ChunkResult:
    """Validate some files of one kind; keep valid items only if asked."""
    cut = len(job.root) + 1
    valid: list[StoredItem[Any]] = []
    invalid: list[InvalidItem] = []
    count = 0
    build = _validator(job.kind, job.memory_red_team_enabled)
    check = _checker(job.kind, job.memory_red_team_enabled)
    for path in job.paths:
        relative = path[cut:].replace(os.sep, "/")
        try:
            document = parse_json_document(_read_one(path), what=relative)
            if job.keep:
                valid.append(StoredItem(relative, build(document)))
            elif problems := check(document):
                raise SchemaInvalid("invalid", problems=problems)
            count += 1
        except SchemaInvalid as error:
            invalid.append(InvalidItem(relative, error.problems))
    if job.latest_only:
        valid = list(_latest_stored_runs(valid))
    return _ChunkResult(tuple(valid), tuple(invalid), count)


def load_store(
    root: Path | str,
    *,
    memory_red_team_enabled: bool = True,
    kinds: Iterable[StoreKind] = ALL_KINDS,
    counted_only: Iterable[StoreKind] = (),
    run_file_names: Collection[str] | None = None,
    latest_runs_only: bool = False,
    executor: Executor | None = None,
) -> StoreContents:
    """Read and validate every document of the given kinds under ``root``.

    Missing kind folders are empty. ``memory_red_team_enabled`` is the
    memoryRedTeamBench flag for manifests (reading a store enables nothing,
    so it defaults on). Kinds in ``counted_only`` are validated and counted
    but their valid items are not kept (the gate only needs to know how many
    shadow records are invalid). ``run_file_names`` (``{"<runId>.json"}``)
    limits the runs read to those file names, e.g. the runs a snapshot refers
    to. ``latest_runs_only`` validates and counts every run but keeps only
    the latest completed one per benchmark (what the gate compares).
    ``executor`` (e.g. a process pool) spreads validation over workers;
    the result is identical with or without one. Raises ``StoreUnreadable``
    when ``root`` is not a readable directory.
    """
    root_text = os.fspath(root)
    if not os.path.isdir(root_text):
        raise StoreUnreadable(f"eval store directory not found: {root_text}")
    try:
        os.listdir(root_text)
    except OSError as error:
        raise StoreUnreadable(
            f"eval store directory cannot be read: {root_text}: {error.strerror}"
        ) from None
    wanted = frozenset(kinds)
    counted = frozenset(counted_only) & wanted
    base = root_text.rstrip(os.sep) or os.sep
    jobs: list[_Job] = []
    for kind in StoreKind:
        if kind not in wanted:
            continue
        only = MANIFEST_NAME if kind is StoreKind.BENCHMARKS else None
        paths = sorted(_scan(os.path.join(base, kind.value), only))
        if kind is StoreKind.RUNS and run_file_names is not None:
            names = frozenset(run_file_names)
            paths = [path for path in paths if os.path.basename(path) in names]
        for start in range(0, len(paths), _CHUNK):
            chunk = tuple(paths[start : start + _CHUNK])
            latest_only = latest_runs_only and kind is StoreKind.RUNS
            keep = kind not in counted
            jobs.append(
                _Job(base, kind, chunk, memory_red_team_enabled, keep, latest_only)
            )
    if executor is None or len(jobs) < 2:
        results = [_load_chunk(job) for job in jobs]
    else:
        results = list(executor.map(_load_chunk, jobs))
    valid: dict[StoreKind, list[StoredItem[Any]]] = {kind: [] for kind in StoreKind}
    invalid: dict[StoreKind, list[InvalidItem]] = {kind: [] for kind in StoreKind}
    counts = dict.fromkeys(StoreKind, 0)
    for job, result in zip(jobs, results, strict=True):
        valid[job.kind].extend(result.valid)
        invalid[job.kind].extend(result.invalid)
        counts[job.kind] += result.valid_count
    if latest_runs_only:
        valid[StoreKind.RUNS] = list(_latest_stored_runs(valid[StoreKind.RUNS]))
    return StoreContents(
        root=root_text,
        kinds=wanted,
        counted_only=counted,
        latest_runs_only=latest_runs_only,
        valid_counts=ItemCounts(
            benchmarks=counts[StoreKind.BENCHMARKS],
            runs=counts[StoreKind.RUNS],
            shadows=counts[StoreKind.SHADOWS],
            baselines=counts[StoreKind.BASELINES],
        ),
        manifests=tuple(valid[StoreKind.BENCHMARKS]),
        runs=tuple(valid[StoreKind.RUNS]),
        shadows=tuple(valid[StoreKind.SHADOWS]),
        baselines=tuple(valid[StoreKind.BASELINES]),
        invalid_manifests=tuple(invalid[StoreKind.BENCHMARKS]),
        invalid_runs=tuple(invalid[StoreKind.RUNS]),
        invalid_shadows=tuple(invalid[StoreKind.SHADOWS]),
        invalid_baselines=tuple(invalid[StoreKind.BASELINES]),
    )


# --- writing ------------------------------------------------------------------


def _write_atomic(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}", suffix=TMP_MARKER
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class PackWrite:
    """Where a pack went and whether it replaced one."""

    path: Path
    overwritten: bool


class EvalStore:
    """One eval store root: where each document lives, and canonical writes.

    Every write validates the document's wire form first (nothing invalid is
    ever written) and returns the file or folder it wrote.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def pack_dir(self, benchmark_id: str) -> Path:
        """``benchmarks/<id>``; unsafe ids raise ``SchemaInvalid`` (as below)."""
        return (
            self.root
            / StoreKind.BENCHMARKS.value
            / _segment(benchmark_id, "benchmarkId")
        )

    def run_path(self, run_id: str) -> Path:
        return self.root / StoreKind.RUNS.value / f"{_segment(run_id, 'runId')}.json"

    def shadow_path(self, record: ShadowRecord) -> Path:
        _segment(record.trace_id, "traceId")
        return self.root / shadow_relative_path(record)

    def baseline_path(self, snapshot_id: str) -> Path:
        name = _segment(snapshot_id, "snapshotId")
        return self.root / StoreKind.BASELINES.value / f"{name}.json"

    def write_run(self, run: RunSummary, *, relative: str | None = None) -> Path:
        """Write (or replace) ``runs/<runId>.json``, or the run's own path in
        the store it came from (``relative``, e.g. ``runs/2026-03-07/x.json``:
        under ``runs/``, safe segments, ending in ``.json``)."""
        document = run.to_wire()
        validate_run_summary(document)
        target = (
            self.run_path(run.run_id)
            if not relative
            else self.root / run_relative_path(relative)
        )
        _write_atomic(target, store_json_bytes(document))
        return target

    def write_shadow(self, record: ShadowRecord) -> Path:
        """Write (or replace) ``shadow/<day>/<traceId>.json``."""
        document = record.to_wire()
        validate_shadow_record(document)
        target = self.shadow_path(record)
        _write_atomic(target, store_json_bytes(document))
        return target

    def write_baseline(self, snapshot: BaselineSnapshot) -> Path:
        """Write (or replace) ``baselines/<snapshotId>.json``."""
        document = snapshot.to_wire()
        validate_baseline_snapshot(document)
        target = self.baseline_path(snapshot.snapshot_id)
        _write_atomic(target, store_json_bytes(document))
        return target

    def write_pack(
        self,
        manifest: Manifest,
        extra_files: Mapping[str, bytes] | None = None,
        *,
        force: bool = False,
    ) -> PackWrite:
        """Write ``benchmarks/<benchmarkId>/`` with its manifest and extra files.

        An existing pack is replaced only with ``force`` (else ``Conflict``);
        the new folder is complete before it takes the old one's place. Extra
        file paths are checked like archive members (``UnsafeArchive``).
        """
        target = self.pack_dir(manifest.benchmark_id)
        files: dict[str, bytes] = {}
        for name, content in (extra_files or {}).items():
            path = member_path(name, filename="pack")
            if path is None or path == MANIFEST_NAME:
                raise UnsafeArchive(
                    ArchiveRefusal.DUPLICATE_MEMBER,
                    f"pack: extra file {name!r} would replace the manifest",
                    member=name,
                )
            files[path] = content
        files[MANIFEST_NAME] = store_json_bytes(manifest.to_wire())
        exists = target.exists() or target.is_symlink()
        if exists and not force:
            raise Conflict(
                f"benchmark pack already exists at {target}; "
                "rerun with --force to replace it"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(
            tempfile.mkdtemp(
                dir=target.parent, prefix=f".{target.name}", suffix=TMP_MARKER
            )
        )
        try:
            for path, content in sorted(files.items()):
                destination = staging.joinpath(*path.split("/"))
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(content)
            retired: Path | None = None
            if exists:
                retired = target.with_name(f".{target.name}.old{TMP_MARKER}")
                if retired.exists():
                    shutil.rmtree(retired)
                target.rename(retired)
            staging.rename(target)
            if retired is not None:
                shutil.rmtree(retired, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return PackWrite(path=target, overwritten=exists)

    def load(self, *, memory_red_team_enabled: bool = True) -> StoreContents:
        """Everything in this store (``load_store`` with the defaults)."""
        return load_store(self.root, memory_red_team_enabled=memory_red_team_enabled)


def run_relative_path(relative: str) -> str:
    """``relative`` checked as a run summary's place in a store: ``runs/``
    then safe path segments, the last one ending in ``.json``. Raises
    ``SchemaInvalid`` otherwise."""
    parts = relative.split("/")
    if (
        len(parts) < 2
        or parts[0] != StoreKind.RUNS.value
        or not parts[-1].endswith(".json")
        or not all(is_safe_path_segment(part) for part in parts[1:])
    ):
        problem = SchemaProblem(
            "$.storePath", "unsafe_path", "storePath must be a .json file under runs/"
        )
        raise SchemaInvalid(
            "storePath must be a .json file under runs/", problems=[problem]
        )
    return relative


def _segment(value: str, field: str) -> str:
    if not isinstance(value, str) or not is_safe_path_segment(value):
        problem = SchemaProblem(
            f"$.{field}", "unsafe_path_segment", f"{field} must be a safe path segment"
        )
        raise SchemaInvalid(f"{field} must be a safe path segment", problems=[problem])
    return value


# --- status and snapshots -----------------------------------------------------


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
