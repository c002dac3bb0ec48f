"""Writing an eval store: one document at a time, atomically, with the core's
canonical bytes and the store's layout (``EvalStore``), and the relative
path a run file keeps."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from core.errors import Conflict, SchemaInvalid, SchemaProblem
from evals.core.archive import MANIFEST_NAME, ArchiveRefusal, UnsafeArchive, member_path
from evals.core.baselines import validate_baseline_snapshot
from evals.core.format_rules import is_safe_path_segment
from evals.core.formats_types import (
    BaselineSnapshot,
    Manifest,
    RunSummary,
    ShadowRecord,
)
from evals.core.runs import (
    validate_run_summary,
)
from evals.core.shadow import (
    shadow_relative_path,
    validate_shadow_record,
)
from evals.core.store import TMP_MARKER, StoreContents, StoreKind, store_json_bytes
from evals.core.store_reader import load_store


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
