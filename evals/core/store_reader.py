"""Reading an on-disk eval store (layout and rules: ``evals.core.store``).

Every file of the wanted kinds is read (never through a link), parsed and
validated, in chunks that a process pool may share; the result is the same
with or without one. Run summaries and baseline snapshots are first brought
to the form the reference store's reader makes of them
(``evals.core.store_compat``), so a store that gates there gates here.

The latest completed run of a benchmark is chosen as the reference store
chooses it: newest completedAt, else startedAt, compared to the
millisecond; of runs at the same millisecond, the first in path order.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from evals.core.archive import MANIFEST_NAME
from evals.core.baselines import validate_baseline_snapshot
from evals.core.format_rules import parse_json_document
from evals.core.formats_types import (
    RunStatus,
    RunSummary,
)
from evals.core.packs import validate_manifest
from evals.core.runs import (
    StoredRunFile,
    read_stored_run,
    run_summary_problems,
    validate_run_summary,
)
from evals.core.runs import fast_valid as fast_valid_run
from evals.core.shadow import fast_valid as fast_valid_shadow
from evals.core.shadow import (
    shadow_record_problems,
    stored_record_instant,
    validate_shadow_record,
)
from evals.core.store import (
    ALL_KINDS,
    TMP_MARKER,
    InvalidItem,
    ItemCounts,
    StoreContents,
    StoredItem,
    StoreKind,
    StoreUnreadable,
)
from evals.core.store_columns import stored_run_item
from evals.core.store_compat import (
    run_as_reference_reads,
    snapshot_as_reference_reads,
)

# Files per chunk of work (a process pool's unit).
_CHUNK = 2000


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


def _as_reference_reads(kind: StoreKind, document: Any) -> Any:
    """``document`` as the reference store's reader makes it (runs and
    snapshots; the other kinds are read as written)."""
    if kind is StoreKind.RUNS:
        return run_as_reference_reads(document)
    if kind is StoreKind.BASELINES:
        return snapshot_as_reference_reads(document)
    return document


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
            data = os.read(descriptor, _READ_SIZE)
            if len(data) == _READ_SIZE:
                chunks = [data]
                while len(chunks[-1]) == _READ_SIZE:
                    chunks.append(os.read(descriptor, _READ_SIZE))
                data = b"".join(chunks)
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
    return data


@dataclass(frozen=True, slots=True)
class _Job:
    root: str
    kind: StoreKind
    paths: tuple[str, ...]
    memory_red_team_enabled: bool
    keep: bool
    latest_only: bool = False
    columns: bool = False


def _to_millisecond(instant: datetime) -> datetime:
    """``instant`` as JavaScript's ``Date.parse`` keeps it."""
    return instant.replace(microsecond=instant.microsecond // 1000 * 1000)


def _latest_stored_runs(
    items: Iterable[StoredItem[RunSummary]],
) -> list[StoredItem[RunSummary]]:
    """The latest completed run per benchmark (module docstring), in path
    order. ``items`` come in path order, as each chunk's do, so reducing
    per chunk and then overall loses nothing."""
    best: dict[str, tuple[datetime, StoredItem[RunSummary]]] = {}
    for stored in items:
        run = stored.item
        if run.status is not RunStatus.COMPLETED:
            continue
        key = _to_millisecond(run.recency)
        current = best.get(run.benchmark_id)
        if current is None or key > current[0]:
            best[run.benchmark_id] = (key, stored)
    return sorted((stored for _, stored in best.values()), key=lambda s: s.path)


@dataclass(frozen=True, slots=True)
class _ChunkResult:
    valid: tuple[StoredItem[Any], ...]
    invalid: tuple[InvalidItem, ...]
    valid_count: int


# Per benchmark, the latest completed run so far: its instant (to the
# millisecond), its path, and the run, built, or as its checked file until
# it is the last.
_Latest = dict[str, tuple[datetime, str, RunSummary | StoredRunFile]]


def _keep_if_latest(
    latest: _Latest,
    benchmark_id: str,
    recency: datetime,
    relative: str,
    entry: RunSummary | StoredRunFile,
) -> None:
    """Keep ``entry`` if it is the latest completed run of its benchmark so
    far; files come in path order, so a tie keeps the first path, as
    ``_latest_stored_runs``."""
    key = _to_millisecond(recency)
    current = latest.get(benchmark_id)
    if current is None or key > current[0]:
        latest[benchmark_id] = (key, relative, entry)


def _offer_stored(
    latest: _Latest, _valid: list[StoredItem[Any]], relative: str, data: bytes
) -> bool:
    """Offer a run file to ``latest`` if ``read_stored_run`` vouches for its
    bytes: kept as checked and built only if it stays the latest (the gate
    reads a thousand runs per benchmark and keeps one). ``False`` proves
    nothing."""
    stored = read_stored_run(data)
    if stored is None:
        return False
    key = stored.key
    if key.completed:
        _keep_if_latest(latest, key.benchmark_id, key.recency, relative, stored)
    return True


def _keeper(columns: bool) -> _Quick:
    """Keep a run file built straight from its bytes if ``read_stored_run``
    vouches for them (the runs a snapshot names, with their case results,
    as columns with ``columns``). ``False`` proves nothing."""

    def keep(
        _latest: _Latest, valid: list[StoredItem[Any]], relative: str, data: bytes
    ) -> bool:
        stored = read_stored_run(data)
        if stored is None:
            return False
        valid.append(stored_run_item(relative, stored, columns=columns))
        return True

    return keep


def _offer_latest(latest: _Latest, relative: str, document: Any) -> None:
    """Offer a parsed document to ``latest``; ``SchemaInvalid`` if it is no
    valid run."""
    entry = validate_run_summary(document)
    if entry.status is RunStatus.COMPLETED:
        _keep_if_latest(latest, entry.benchmark_id, entry.recency, relative, entry)


def _count_stored(
    _latest: _Latest, _valid: list[StoredItem[Any]], _relative: str, data: bytes
) -> bool:
    return stored_record_instant(data) is not None


_Quick = Callable[[_Latest, list[StoredItem[Any]], str, bytes], bool]


def _quick_check(job: _Job) -> _Quick | None:
    """For the kinds the gate reads by the hundred thousand (runs, counted
    shadows): ``quick(latest, valid, relative, data)`` decodes a file's
    bytes straight into checked fields and offers the run to ``latest``,
    keeps it in ``valid`` or counts the record when it certainly passes.
    ``False`` proves nothing: the file is then read in full, as every file
    of other jobs (``None``) is."""
    if job.kind is StoreKind.RUNS and job.latest_only:
        return _offer_stored
    if job.kind is StoreKind.RUNS and job.keep:
        return _keeper(job.columns)
    if job.kind is StoreKind.SHADOWS and not job.keep:
        return _count_stored
    return None


def _load_chunk(job: _Job) -> _ChunkResult:
    """Validate some files of one kind; keep valid items only if asked."""
    cut = len(job.root) + 1
    valid: list[StoredItem[Any]] = []
    invalid: list[InvalidItem] = []
    latest: _Latest = {}
    count = 0
    build = _validator(job.kind, job.memory_red_team_enabled)
    check = _checker(job.kind, job.memory_red_team_enabled)
    quick = _quick_check(job)
    for path in job.paths:
        relative = path[cut:].replace(os.sep, "/")
        try:
            data = _read_one(path)
            if quick is not None and quick(latest, valid, relative, data):
                count += 1
                continue
            document = _as_reference_reads(
                job.kind, parse_json_document(data, what=relative)
            )
            if job.latest_only:
                _offer_latest(latest, relative, document)
            elif job.keep:
                valid.append(StoredItem(relative, build(document)))
            elif problems := check(document):
                raise SchemaInvalid("invalid", problems=problems)
            count += 1
        except SchemaInvalid as error:
            invalid.append(InvalidItem(relative, error.problems))
    if job.latest_only:
        valid = [
            StoredItem(relative, entry)
            if isinstance(entry, RunSummary)
            else stored_run_item(relative, entry, columns=job.columns)
            for _, relative, entry in sorted(latest.values(), key=lambda e: e[1])
        ]
    return _ChunkResult(tuple(valid), tuple(invalid), count)


def load_store(
    root: Path | str,
    *,
    memory_red_team_enabled: bool = True,
    kinds: Iterable[StoreKind] = ALL_KINDS,
    counted_only: Iterable[StoreKind] = (),
    run_file_names: Collection[str] | None = None,
    latest_runs_only: bool = False,
    case_columns: bool = False,
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
    ``case_columns`` keeps the case results of runs read through the fast
    path as columns (``StoredItem.columns``), their ``case_results`` not
    built (``None``): what the ``--stat`` gate reads of them.
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
            keep = kind not in counted
            # Runs that are only counted keep no latest one either.
            latest_only = latest_runs_only and kind is StoreKind.RUNS and keep
            columns = case_columns and kind is StoreKind.RUNS
            jobs.append(
                _Job(
                    base,
                    kind,
                    chunk,
                    memory_red_team_enabled,
                    keep,
                    latest_only,
                    columns,
                )
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
