"""A content-addressed file store: each file is kept once, under its SHA-256.

Files are written in chunks to a temporary file inside the store, hashed as
they stream, flushed to disk and then renamed into place, so a reader never
sees half a file and a failure leaves no partial file at a real address (a
temporary file left by a crash sits under ``.tmp/``, which no address
names). The address is ``<root>/<first two hex digits>/<sha256>``. Memory
stays bounded by the chunk size, whatever the file size.

Pure filesystem code: no Django; the caller gives the root.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

CHUNK_BYTES = 1024 * 1024
_DIGEST = re.compile(r"[0-9a-f]{64}")
_TEMP = ".tmp"


@dataclass(frozen=True, slots=True)
class FileRef:
    """A stored file's address and size."""

    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class PutResult:
    ref: FileRef
    # False when a file with these bytes was already stored.
    created: bool
    # The stored file's modification time after this put (nanoseconds).
    mtime_ns: int = 0


def ref_of(data: bytes) -> FileRef:
    """The address ``data`` has (or would have) in a store."""
    return FileRef(hashlib.sha256(data).hexdigest(), len(data))


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, sha256: str) -> Path:
        if not _DIGEST.fullmatch(sha256):
            raise ValueError(f"not a SHA-256 hex digest: {sha256!r}")
        return self.root / sha256[:2] / sha256

    def exists(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def put(self, chunks: Iterable[bytes]) -> PutResult:
        """Store the concatenation of ``chunks``; an exception raised while
        they are read (a limit, a corrupt archive) leaves nothing behind."""
        temp_dir = self.root / _TEMP
        temp_dir.mkdir(parents=True, exist_ok=True)
        temp = temp_dir / f"{secrets.token_hex(16)}.part"
        hasher = hashlib.sha256()
        size = 0
        try:
            with open(temp, "xb") as handle:
                for chunk in chunks:
                    hasher.update(chunk)
                    handle.write(chunk)
                    size += len(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            ref = FileRef(hasher.hexdigest(), size)
            target = self.path(ref.sha256)
            if target.is_file():
                temp.unlink()
                # Touched: a writer that created it and now gives it up
                # (``remove_if_unchanged``) sees that someone else uses it.
                before = target.stat().st_mtime_ns
                stamp = max(time.time_ns(), before + 1)
                os.utime(target, ns=(stamp, stamp))
                return PutResult(ref, False, target.stat().st_mtime_ns)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temp, target)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        return PutResult(ref, True, target.stat().st_mtime_ns)

    def put_bytes(self, data: bytes) -> PutResult:
        return self.put(
            data[start : start + CHUNK_BYTES]
            for start in range(0, len(data), CHUNK_BYTES)
        )

    def open(self, sha256: str) -> BinaryIO:
        return open(self.path(sha256), "rb")

    def read(self, sha256: str) -> bytes:
        return self.path(sha256).read_bytes()

    def chunks(self, sha256: str) -> Iterator[bytes]:
        with self.open(sha256) as handle:
            while chunk := handle.read(CHUNK_BYTES):
                yield chunk

    def remove_if_unchanged(self, sha256: str, mtime_ns: int) -> bool:
        """Delete a stored file unless another put touched it since
        ``mtime_ns`` (it is someone else's now too)."""
        try:
            if self.path(sha256).stat().st_mtime_ns != mtime_ns:
                return False
        except FileNotFoundError:
            return False
        return self.remove(sha256)

    def remove(self, sha256: str) -> bool:
        """Delete a stored file; ``False`` when there was none."""
        try:
            self.path(sha256).unlink()
        except FileNotFoundError:
            return False
        return True
