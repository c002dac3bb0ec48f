"""Use cases of benchmark packs, and keeping an invalid upload for review.

A pack comes in over REST, the upload page, the admin or ``benchmark_import``
as a manifest document, a manifest file or a zip/tar.gz pack. An archive is
streamed member by member, in chunks, through the core's safe extraction
into the pack file store (``evals.services.pack_files``), so an upload's
memory stays bounded whatever it expands to. The core validates it
(``evals.core.packs``) before any row is written, with every problem and
its JSON path; the only write a refusal makes is on purpose: an invalid
upload is kept as an ``InvalidUpload`` (status pending) for staff review,
who can re-validate it, accept it once it validates, or reject it.

Idempotency: the same pack again is a no-op reported as ``unchanged``; a
different pack under an existing id is a ``Conflict`` (409) unless ``force``
replaces it; a suite's id is never taken by a pack.

Uploads of one file (a manifest or an archive) are
``evals.services.pack_uploads``'s, where extra files are kept
``evals.services.pack_files``'. This module also holds the chunk size of
bulk queries the benchmark services share. Feature flags are
``evals.services.features``'s, the review of kept uploads
``evals.services.invalid_uploads``'s.

Logs ``[Eval] benchmark_pack_saved ...`` and ``[Eval] benchmark_pack_invalid
...``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.audit import Action, audit_record
from core.canonical import digest
from core.errors import Conflict, SchemaInvalid, SchemaProblem
from core.scopes import BENCHMARKS_REPLACE
from core.text import storable
from evals.core.archive import (
    MANIFEST_NAME,
    ArchiveRefusal,
    UnsafeArchive,
    member_path,
)
from evals.core.blobs import FileRef
from evals.core.formats_types import Manifest
from evals.core.packs import read_pack_source, validate_manifest
from evals.core.store import store_json_bytes
from evals.models import Benchmark, InvalidUpload
from evals.services.access import actor_label, key_name, require_gate_privilege
from evals.services.columns import require_storable
from evals.services.pack_files import (
    PackFileWrites,
    files_digest,
    pack_files_set,
    pack_files_sweep,
)

logger = logging.getLogger(__name__)

# One POST carries at most this many shadow records; the body limit
# (API_MAX_BODY_BYTES) bounds it too.
MAX_SHADOW_BATCH = 1000
# SQLite allows 32766 bound variables per statement; chunked lookups and
# inserts stay far below it on every backend.
LOOKUP_CHUNK = 500


def _checked_files[V](files: Mapping[str, V]) -> dict[str, V]:
    """Extra files with safe, normalised paths (the archive rules)."""
    out: dict[str, V] = {}
    for name, content in files.items():
        path = member_path(name, filename="pack")
        if path is None or path == MANIFEST_NAME or path in out:
            raise UnsafeArchive(
                ArchiveRefusal.DUPLICATE_MEMBER,
                f"pack: extra file {name!r} would replace another file",
                member=name,
            )
        out[path] = content
    return out


# --- benchmark packs -----------------------------------------------------------


class PackOutcome:
    CREATED = "created"
    REPLACED = "replaced"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class PackResult:
    benchmark: Benchmark
    outcome: str

    @property
    def created(self) -> bool:
        return self.outcome == PackOutcome.CREATED


def pack_fields(manifest: Manifest, files: Mapping[str, FileRef]) -> dict[str, Any]:
    """The ``Benchmark`` columns of a valid pack (kind pack) whose extra
    files are ``files`` (their rows are ``pack_files_set``'s)."""
    wire = manifest.to_wire()
    return {
        "kind": Benchmark.Kind.PACK,
        "title": manifest.title,
        "benchmark_type": manifest.benchmark_type.value,
        "attack_class": manifest.attack_class or "",
        "target_surface": manifest.target_surface or "",
        "tags": list(manifest.tags or ()),
        "manifest": wire,
        "manifest_digest": digest(wire),
        "files_digest": files_digest(files),
        "case_count": len(manifest.cases),
    }


def pack_conflict(existing: Benchmark, fields: Mapping[str, Any]) -> str | None:
    """Why ``fields`` cannot silently take ``existing``'s place, or ``None``
    when it may (same content, or a placeholder that has no manifest yet)."""
    if existing.kind != Benchmark.Kind.PACK:
        return (
            f"benchmark id {existing.benchmark_id!r} is taken by a "
            f"{existing.get_kind_display()}; a pack cannot replace it"
        )
    if not existing.manifest or is_same_pack(existing, fields):
        return None
    return f"benchmark pack already exists: {existing.benchmark_id}"


def is_same_pack(existing: Benchmark, fields: Mapping[str, Any]) -> bool:
    return (
        existing.manifest_digest == fields["manifest_digest"]
        and existing.files_digest == fields["files_digest"]
    )


def _manifest_text(document: Any) -> str:
    return storable(json.dumps(document, indent=2, ensure_ascii=False))


def invalid_upload_keep(
    *,
    raw: str,
    problems: Sequence[SchemaProblem],
    filename: str = "",
    extra_files: Mapping[str, FileRef] | None = None,
    user: Any = None,
) -> InvalidUpload:
    """Keep a refused pack upload for staff review (status pending), with
    its extra files (already in the pack file store).

    Logs ``[Eval] benchmark_pack_invalid upload_id=<pk> filename=<name>
    problems=<n>``.
    """
    # What was received may hold text no column stores (NUL, lone
    # surrogates): keep a visible escape of it instead.
    with transaction.atomic():
        upload = InvalidUpload.objects.create(
            kind=InvalidUpload.Kind.MANIFEST,
            filename=storable(filename)[:500],
            raw=storable(raw),
            errors=[
                {key: storable(value) for key, value in problem.as_dict().items()}
                for problem in problems
            ],
            error_count=len(problems),
            uploaded_by=user if getattr(user, "is_authenticated", False) else None,
        )
        pack_files_set(
            new=True,
            upload=upload,
            refs={storable(name): ref for name, ref in (extra_files or {}).items()},
        )
    logger.info(
        "[Eval] benchmark_pack_invalid upload_id=%d filename=%s problems=%d",
        upload.pk,
        upload.filename or "-",
        len(problems),
        extra={"upload_id": upload.pk, "problems": len(problems)},
    )
    return upload


def refuse_and_keep(
    error: SchemaInvalid,
    *,
    raw: str,
    filename: str,
    extra_files: Mapping[str, FileRef] | None,
    user: Any,
) -> SchemaInvalid:
    upload = invalid_upload_keep(
        raw=raw,
        problems=error.problems,
        filename=filename,
        extra_files=extra_files,
        user=user,
    )
    error.details["invalidUploadId"] = upload.pk
    return error


def benchmark_pack_create(
    *,
    document: Any,
    extra_files: Mapping[str, bytes] | None = None,
    stored_files: Mapping[str, FileRef] | None = None,
    force: bool = False,
    user: Any = None,
    key: Any = None,
    filename: str = "",
    raw: str | None = None,
    keep_invalid: bool = False,
) -> PackResult:
    """Validate a manifest and store it (with its extra files) as a pack.

    Extra files come as bytes (``extra_files``) or already in the pack file
    store (``stored_files``, an archive upload's); both are kept there, only
    names, sizes and digests in the database.

    Raises ``SchemaInvalid`` with every problem (with ``keep_invalid`` the
    upload is first kept as an ``InvalidUpload`` and its id put in
    ``details["invalidUploadId"]``; ``raw`` is the text as received),
    ``Conflict`` when a different pack with this id exists and ``force`` is
    off or the id belongs to a suite, ``UnsafeArchive`` for an unsafe extra
    file path. An identical pack is ``unchanged``. Logs
    ``[Eval] benchmark_pack_saved benchmark_id=<id> cases=<n> outcome=<o>``.
    Replacing a different pack (``force``) needs staff or a key with
    ``benchmarks:replace`` (``Forbidden``, nothing written); who did it is
    recorded on the benchmark, in the audit log (``accounts.audit``) and
    logged (``[Eval] benchmark_pack_replaced benchmark_id=<id> by=<actor>``).
    """
    with PackFileWrites() as writes:
        refs = dict(stored_files or {})
        refs.update(writes.put_files(extra_files or {}))
        return _pack_create(
            document,
            refs,
            force=force,
            user=user,
            key=key,
            filename=filename,
            raw=raw,
            keep_invalid=keep_invalid,
        )


def _pack_create(
    document: Any,
    refs: Mapping[str, FileRef],
    *,
    force: bool,
    user: Any,
    key: Any,
    filename: str,
    raw: str | None,
    keep_invalid: bool,
) -> PackResult:
    try:
        manifest = validate_manifest(
            document, memory_red_team_enabled=settings.MEMORY_RED_TEAM_BENCH_ENABLED
        )
        require_storable(
            document,
            Benchmark,
            [
                ("title", "$.title", manifest.title),
                ("attack_class", "$.attackClass", manifest.attack_class),
                ("target_surface", "$.targetSurface", manifest.target_surface),
            ],
            what="benchmark manifest",
            identifiers=[
                *(
                    (f"$.cases[{i}].id", case.id)
                    for i, case in enumerate(manifest.cases)
                ),
                *((f"$.tags[{i}]", tag) for i, tag in enumerate(manifest.tags or ())),
            ],
        )
    except SchemaInvalid as error:
        if keep_invalid:
            raise refuse_and_keep(
                error,
                raw=raw if raw is not None else _manifest_text(document),
                filename=filename,
                extra_files=refs,
                user=user,
            ) from None
        raise
    files = _checked_files(refs)
    fields = pack_fields(manifest, files)
    try:
        benchmark, outcome, dropped = _pack_save(
            manifest.benchmark_id, fields, files, force=force, user=user, key=key
        )
    except IntegrityError:
        # A concurrent request created it first: decide again against it.
        benchmark, outcome, dropped = _pack_save(
            manifest.benchmark_id, fields, files, force=force, user=user, key=key
        )
    # Files only the replaced pack had go once the replacement is committed.
    transaction.on_commit(lambda: pack_files_sweep(dropped))
    logger.info(
        "[Eval] benchmark_pack_saved benchmark_id=%s cases=%d outcome=%s",
        benchmark.benchmark_id,
        benchmark.case_count,
        outcome,
        extra={"benchmark_id": benchmark.benchmark_id, "outcome": outcome},
    )
    return PackResult(benchmark, outcome)


def _pack_save(
    benchmark_id: str,
    fields: Mapping[str, Any],
    files: Mapping[str, FileRef],
    *,
    force: bool,
    user: Any = None,
    key: Any = None,
) -> tuple[Benchmark, str, set[str]]:
    with transaction.atomic():
        existing = (
            Benchmark.objects.select_for_update()
            .filter(benchmark_id=benchmark_id)
            .first()
        )
        if existing is None:
            benchmark = Benchmark.objects.create(benchmark_id=benchmark_id, **fields)
            pack_files_set(benchmark=benchmark, refs=files, new=True)
            return benchmark, PackOutcome.CREATED, set()
        reason = pack_conflict(existing, fields)
        if reason is not None and (existing.kind != Benchmark.Kind.PACK or not force):
            raise Conflict(reason, details={"benchmarkId": benchmark_id})
        if existing.manifest and is_same_pack(existing, fields):
            return existing, PackOutcome.UNCHANGED, set()
        outcome = PackOutcome.REPLACED if existing.manifest else PackOutcome.CREATED
        if reason is not None:
            require_gate_privilege(
                user=user,
                key=key,
                scope=BENCHMARKS_REPLACE,
                action=f"replacing pack {benchmark_id}",
            )
            existing.replaced_at = timezone.now()
            existing.replaced_by = (
                user if getattr(user, "is_authenticated", False) else None
            )
            existing.replaced_by_key = key_name(key)
            audit_record(
                action=Action.PACK_REPLACE,
                target_type="pack",
                target_id=benchmark_id,
                target_label=benchmark_id,
                user=user,
                key=key,
                details={"why": reason},
            )
            logger.warning(
                "[Eval] benchmark_pack_replaced benchmark_id=%s by=%s",
                benchmark_id,
                actor_label(user, key),
                extra={"benchmark_id": benchmark_id},
            )
        for name, value in fields.items():
            setattr(existing, name, value)
        existing.save()
        return existing, outcome, pack_files_set(benchmark=existing, refs=files)


@dataclass(frozen=True, slots=True)
class PackSource:
    """A pack read from a path: its validated manifest and extra files."""

    manifest: Manifest
    document: Any
    extra_files: dict[str, bytes]


def benchmark_pack_read(*, path: Path) -> PackSource:
    """Read and validate a pack given by path (``benchmark_validate``).

    ``path`` is a manifest JSON file, a pack directory with a root
    ``manifest.json``, or a zip/tar.gz pack. Raises ``NotFound``,
    ``SchemaInvalid`` (every problem) or ``UnsafeArchive``; writes nothing.
    """
    document, extra = read_pack_source(path)
    manifest = validate_manifest(
        document, memory_red_team_enabled=settings.MEMORY_RED_TEAM_BENCH_ENABLED
    )
    return PackSource(manifest, document, extra)


def benchmark_pack_import(*, path: Path, force: bool = False) -> PackResult:
    """``benchmark_import``: read a pack by path and store it; an existing
    different pack is replaced only with ``force`` (``Conflict`` otherwise).
    Nothing is kept for review: the operator sees the problems at once."""
    source = benchmark_pack_read(path=path)
    return benchmark_pack_create(
        document=source.document,
        extra_files=source.extra_files,
        force=force,
        filename=path.name,
    )


def pack_manifest_bytes(benchmark: Benchmark) -> bytes:
    """The pack's manifest exactly as ``eval_store_export`` writes it.

    Rebuilt through the core because Postgres ``jsonb`` does not keep the
    key order of the stored document.
    """
    manifest = validate_manifest(benchmark.manifest, memory_red_team_enabled=True)
    return store_json_bytes(manifest.to_wire())
