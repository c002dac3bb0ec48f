"""The extra files of benchmark packs (and of uploads kept for review).

Their bytes live in the pack file store (``settings.PACK_FILES_DIR``), each
file once under its SHA-256 (``evals.core.blobs``); a ``PackFile`` row keeps
its path, size and digest, so pages and lists never read a file. An upload
streams each archive member into the store in chunks (bounded memory) before
anything is written to the database; whatever a failed upload stored and no
row refers to is removed again (``PackFileWrites``), so a refusal, a
conflict or an error half-way leaves neither rows nor files behind. A file
another upload stored again meanwhile is kept (that upload may not have
committed yet). A process killed half-way can leave a file no row names, or
a part under ``.tmp/``; neither is ever read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import QuerySet

from core.canonical import digest
from evals.core.archive import stream_pack_archive
from evals.core.blobs import BlobStore, FileRef, PutResult, ref_of
from evals.models import Benchmark, InvalidUpload, PackFile


def pack_store() -> BlobStore:
    return BlobStore(Path(settings.PACK_FILES_DIR))


def files_digest(refs: Mapping[str, FileRef]) -> str:
    """The ``Benchmark.files_digest`` of these files ("" when there are none)."""
    if not refs:
        return ""
    return digest({path: refs[path].sha256 for path in sorted(refs)})


def refs_of(files: Mapping[str, bytes]) -> dict[str, FileRef]:
    """Where in-memory files would be stored (nothing is written)."""
    return {path: ref_of(files[path]) for path in sorted(files)}


class PackFileWrites:
    """Files stored for one upload or import: when the ``with`` block ends
    (an exception included), every file it stored that no row refers to is
    removed."""

    def __init__(self) -> None:
        self.store = pack_store()
        # Files this block created, with their modification time then.
        self.created: dict[str, int] = {}

    def __enter__(self) -> PackFileWrites:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        # Stored files a row now refers to stay; the rest (all of them when
        # the upload failed, and an archive's manifest) go.
        try:
            pack_files_sweep(self.created)
        except DatabaseError:
            # The database cannot say what is referred to: keep the files
            # (whole, content-addressed, harmless) and let the first error
            # be the one raised.
            if kind is None:
                raise

    def _kept(self, result: PutResult) -> FileRef:
        if result.created:
            self.created[result.ref.sha256] = result.mtime_ns
        return result.ref

    def put_chunks(self, chunks: Iterator[bytes]) -> FileRef:
        return self._kept(self.store.put(chunks))

    def put_files(self, files: Mapping[str, bytes]) -> dict[str, FileRef]:
        return {
            path: self._kept(self.store.put_bytes(files[path]))
            for path in sorted(files)
        }

    def put_archive(self, source: BinaryIO, *, filename: str) -> dict[str, FileRef]:
        """Every member of a zip/tar.gz upload, streamed into the store (the
        core's safe extraction and limits); raises ``UnsafeArchive``."""
        return stream_pack_archive(
            source,
            filename=filename,
            sink=lambda _path, chunks: self.put_chunks(chunks),
        )

    def read(self, ref: FileRef, *, limit: int) -> bytes:
        """A stored file's bytes (a manifest), at most ``limit`` of them."""
        with self.store.open(ref.sha256) as handle:
            # Not read(limit): that would allocate ``limit`` bytes up front.
            return handle.read(min(limit, ref.size))


def pack_files_sweep(digests: set[str] | Mapping[str, int]) -> int:
    """Remove the stored files among ``digests`` that no row refers to;
    returns how many were removed. Given ``{digest: mtime_ns}`` (what a
    writer created), a file another upload touched since is kept: that
    upload may not have committed its rows yet."""
    if not digests:
        return 0
    used = set(
        PackFile.objects.filter(sha256__in=list(digests)).values_list(
            "sha256", flat=True
        )
    )
    store = pack_store()
    unused = sorted(set(digests) - used)
    if isinstance(digests, Mapping):
        return sum(store.remove_if_unchanged(d, digests[d]) for d in unused)
    return sum(store.remove(sha256) for sha256 in unused)


def _owner(benchmark: Benchmark | None, upload: InvalidUpload | None) -> dict[str, Any]:
    if (benchmark is None) == (upload is None):
        raise ValueError("pack files belong to exactly one benchmark or upload")
    return {"benchmark": benchmark} if benchmark is not None else {"upload": upload}


def pack_owners_delete(owners: QuerySet[Any]) -> None:
    """Delete benchmarks or kept uploads (``owners``), and once that is
    committed the stored files no remaining row refers to."""
    key = "benchmark__in" if owners.model is Benchmark else "upload__in"
    digests = set(
        PackFile.objects.filter(**{key: owners}).values_list("sha256", flat=True)
    )
    owners.delete()
    transaction.on_commit(lambda: pack_files_sweep(digests))


def pack_files_set(
    *,
    refs: Mapping[str, FileRef],
    benchmark: Benchmark | None = None,
    upload: InvalidUpload | None = None,
    new: bool = False,
) -> set[str]:
    """Make ``refs`` the owner's files (rows only; the bytes are stored
    already); ``new``: the owner was just created and has none yet. Returns
    the digests it no longer refers to, for a sweep once the transaction is
    committed."""
    owner = _owner(benchmark, upload)
    dropped: set[str] = set()
    if not new:
        old = PackFile.objects.filter(**owner)
        dropped = set(old.values_list("sha256", flat=True))
        old.delete()
    PackFile.objects.bulk_create(
        PackFile(**owner, path=path, size=ref.size, sha256=ref.sha256)
        for path, ref in sorted(refs.items())
    )
    return dropped - {ref.sha256 for ref in refs.values()}


def pack_file_refs(
    *, benchmark: Benchmark | None = None, upload: InvalidUpload | None = None
) -> dict[str, FileRef]:
    owner = _owner(benchmark, upload)
    rows = PackFile.objects.filter(**owner).order_by("path")
    return {
        path: FileRef(sha256, size)
        for path, sha256, size in rows.values_list("path", "sha256", "size")
    }


def pack_file_names(
    *, benchmark: Benchmark | None = None, upload: InvalidUpload | None = None
) -> list[str]:
    owner = _owner(benchmark, upload)
    return list(
        PackFile.objects.filter(**owner).order_by("path").values_list("path", flat=True)
    )


def pack_file_contents(
    *, benchmark: Benchmark | None = None, upload: InvalidUpload | None = None
) -> dict[str, bytes]:
    """The owner's files with their bytes (export, and tests): one pack at a
    time, never from a list."""
    store = pack_store()
    refs = pack_file_refs(benchmark=benchmark, upload=upload)
    return {path: store.read(ref.sha256) for path, ref in refs.items()}
