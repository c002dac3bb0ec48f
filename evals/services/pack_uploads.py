"""A benchmark pack uploaded as one file: a manifest JSON, or a zip/tar.gz
pack streamed member by member into the pack file store.

The upload page, ``POST /api/benchmarks/packs`` (multipart) and the admin
come here; the use cases of packs are ``evals.services.benchmarks``'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, BinaryIO

from core.errors import SchemaInvalid
from evals.core.archive import MANIFEST_NAME, ArchiveLimits, split_pack_paths
from evals.core.format_rules import parse_json_document
from evals.services.benchmarks import (
    PackResult,
    benchmark_pack_create,
    refuse_and_keep,
)
from evals.services.pack_files import PackFileWrites

ARCHIVE_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b")


def is_archive(data: bytes) -> bool:
    """A zip or gzip stream, by its magic bytes (never by its name)."""
    return data[:4] in ARCHIVE_MAGIC[:2] or data[:2] == ARCHIVE_MAGIC[2]


def _manifest_candidate(paths: Sequence[str]) -> str | None:
    """Where an archive with no root manifest has one (for the review page)."""
    nested = sorted(
        path for path in paths if path.count("/") == 1 and path.endswith(MANIFEST_NAME)
    )
    return nested[0] if nested else None


def benchmark_pack_upload(
    *,
    source: BinaryIO,
    filename: str,
    user: Any = None,
    key: Any = None,
    force: bool = False,
) -> PackResult:
    """A pack uploaded as one seekable file: a manifest JSON, or a zip/tar.gz
    pack.

    An archive's members are streamed into the pack file store in chunks by
    the core's safe extraction (memory bounded by the chunk size, not the
    upload); a refused archive (``UnsafeArchive``) is an error and is not
    kept, and nothing it stored stays. Every other invalid upload (no root
    manifest, not JSON, invalid manifest) is kept as an ``InvalidUpload``
    and raises ``SchemaInvalid`` with ``details["invalidUploadId"]``.
    """
    head = source.read(4)
    source.seek(0)
    if not is_archive(head):
        data = source.read()
        raw = data.decode("utf-8", errors="replace")
        try:
            document = parse_json_document(data, what=filename or MANIFEST_NAME)
        except SchemaInvalid as error:
            raise refuse_and_keep(
                error, raw=raw, filename=filename, extra_files=None, user=user
            ) from None
        return benchmark_pack_create(
            document=document,
            force=force,
            user=user,
            key=key,
            filename=filename,
            raw=raw,
            keep_invalid=True,
        )
    with PackFileWrites() as writes:
        stored = writes.put_archive(source, filename=filename or "upload")
        limit = ArchiveLimits().max_member_bytes
        try:
            manifest_path, extra_paths = split_pack_paths(stored)
        except SchemaInvalid as error:
            candidate = _manifest_candidate(list(stored))
            raw = (
                writes.read(stored[candidate], limit=limit).decode(
                    "utf-8", errors="replace"
                )
                if candidate
                else ""
            )
            raise refuse_and_keep(
                error, raw=raw, filename=filename, extra_files=None, user=user
            ) from None
        data = writes.read(stored[manifest_path], limit=limit)
        raw = data.decode("utf-8", errors="replace")
        try:
            document = parse_json_document(data, what=MANIFEST_NAME)
        except SchemaInvalid as error:
            raise refuse_and_keep(
                error, raw=raw, filename=filename, extra_files=None, user=user
            ) from None
        return benchmark_pack_create(
            document=document,
            stored_files={path: stored[name] for path, name in extra_paths.items()},
            force=force,
            user=user,
            key=key,
            filename=filename,
            raw=raw,
            keep_invalid=True,
        )
