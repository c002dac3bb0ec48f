"""Safe extraction of uploaded benchmark-pack archives (zip and tar.gz).

Decides whether an uploaded archive may become a pack while streaming its
members, in chunks, to a sink the caller gives (which may write them to a
file store or keep them in memory); nothing is written here.

Refused, each with its own ``UnsafeArchive`` code: absolute member paths,
``..`` components, symbolic or hard links, devices/FIFOs/other non-regular
members, encrypted zip members, duplicate member paths, more than
``max_members`` members, a member or the total above their byte limits, and
a compression ratio above ``max_ratio`` (zip bombs). Sizes are enforced on the
bytes actually read, never only on what headers claim. The format is chosen
from the content's magic bytes; ``filename`` only names the upload in
messages.
"""

from __future__ import annotations

import gzip
import io
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Any, BinaryIO

from core.errors import CoreError, SchemaInvalid, SchemaProblem
from core.text import name_problem, path_problem
from evals.core.format_rules import parse_json_document
from evals.core.tar import TarKind, TarReader, TarRefused

MANIFEST_NAME = "manifest.json"
# Members are read (and handed on) in chunks of at most this many bytes.
CHUNK_BYTES = 1024 * 1024


class ArchiveRefusal(StrEnum):
    ABSOLUTE_PATH = "absolute_path"
    PARENT_REFERENCE = "parent_reference"
    UNSAFE_NAME = "unsafe_name"
    HEADER_TOO_LARGE = "header_too_large"
    LINK = "link"
    SPECIAL_FILE = "special_file"
    ENCRYPTED_MEMBER = "encrypted_member"
    DUPLICATE_MEMBER = "duplicate_member"
    TOO_MANY_MEMBERS = "too_many_members"
    MEMBER_TOO_LARGE = "member_too_large"
    TOTAL_TOO_LARGE = "total_too_large"
    COMPRESSION_RATIO = "compression_ratio"
    UNSUPPORTED_FORMAT = "unsupported_format"
    CORRUPT_ARCHIVE = "corrupt_archive"


class UnsafeArchive(CoreError):
    """An archive refused before anything was extracted; ``code`` says why."""

    code = "unsafe_archive"

    def __init__(
        self, reason: ArchiveRefusal, message: str, *, member: str | None = None
    ) -> None:
        super().__init__(
            message,
            code=reason.value,
            details={"reason": reason.value, "member": member},
        )
        self.reason = reason
        self.member = member


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """Bounds on one upload.

    The ratio is only judged for members of at least ``ratio_min_bytes``:
    small JSON files legitimately compress very well, bombs are big.
    """

    max_members: int = 1000
    max_member_bytes: int = 16 * 1024 * 1024
    max_total_bytes: int = 64 * 1024 * 1024
    max_ratio: float = 100.0
    ratio_min_bytes: int = 64 * 1024
    max_header_bytes: int = 64 * 1024
    max_header_total_bytes: int = 4 * 1024 * 1024


def _shown(name: str) -> str:
    """A member name as messages quote it: escaped, and cut when long."""
    return repr(name if len(name) <= 120 else f"{name[:120]}...")


def member_path(name: str, *, filename: str) -> str | None:
    """The normalised relative path of a member, ``None`` for the root entry.

    Backslashes count as separators (archives made on Windows), and ``.``
    components and empty components are dropped. Names that would break a
    later step are refused: NUL, control, invisible formatting and
    noncharacters, a component over 255 bytes or a path over 1024 bytes
    (``unsafe_name``).
    """
    problem = name_problem(name)
    if problem is not None:
        if "\x00" in name:
            problem = "has a NUL character in its name"
        raise UnsafeArchive(
            ArchiveRefusal.UNSAFE_NAME,
            f"{filename}: member {_shown(name)} {problem}",
            member=name,
        )
    text = name.replace("\\", "/")
    if text.startswith("/") or (
        len(text) >= 2 and text[1] == ":" and text[0].isalpha()
    ):
        raise UnsafeArchive(
            ArchiveRefusal.ABSOLUTE_PATH,
            f"{filename}: member {_shown(name)} has an absolute path",
            member=name,
        )
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchive(
            ArchiveRefusal.PARENT_REFERENCE,
            f"{filename}: member {_shown(name)} escapes the archive with '..'",
            member=name,
        )
    path = "/".join(parts)
    problem = path_problem(path)
    if problem is not None:
        raise UnsafeArchive(
            ArchiveRefusal.UNSAFE_NAME,
            f"{filename}: member {_shown(name)} {problem}",
            member=name,
        )
    return path or None


class _Budget:
    """Running member count and byte total of one extraction."""

    def __init__(self, limits: ArchiveLimits, filename: str) -> None:
        self.limits = limits
        self.filename = filename
        self.total = 0
        self.seen: set[str] = set()

    def count(self, members: int) -> None:
        if members > self.limits.max_members:
            raise UnsafeArchive(
                ArchiveRefusal.TOO_MANY_MEMBERS,
                f"{self.filename}: more than {self.limits.max_members} members",
            )

    def check_size(self, path: str, size: int) -> None:
        if size > self.limits.max_member_bytes:
            raise UnsafeArchive(
                ArchiveRefusal.MEMBER_TOO_LARGE,
                f"{self.filename}: member {_shown(path)} is larger than "
                f"{self.limits.max_member_bytes} bytes",
                member=path,
            )
        if self.total + size > self.limits.max_total_bytes:
            raise UnsafeArchive(
                ArchiveRefusal.TOTAL_TOO_LARGE,
                f"{self.filename}: uncompressed size exceeds "
                f"{self.limits.max_total_bytes} bytes",
                member=path,
            )

    def check_ratio(self, path: str, size: int, compressed: int) -> None:
        if size < self.limits.ratio_min_bytes:
            return
        ratio = size / max(compressed, 1)
        if ratio > self.limits.max_ratio:
            raise UnsafeArchive(
                ArchiveRefusal.COMPRESSION_RATIO,
                f"{self.filename}: member {_shown(path)} expands {ratio:.0f}x, "
                f"above the {self.limits.max_ratio:g}x limit",
                member=path,
            )

    def claim(self, path: str) -> None:
        if path in self.seen:
            raise UnsafeArchive(
                ArchiveRefusal.DUPLICATE_MEMBER,
                f"{self.filename}: member {_shown(path)} appears more than once",
                member=path,
            )
        self.seen.add(path)

    def stream(
        self, path: str, read: Callable[[], bytes], ratio: Callable[[int], None]
    ) -> Iterator[bytes]:
        """The member's bytes in chunks, each limit judged on the bytes read
        so far (never on what a header claims)."""
        size = 0
        while chunk := read():
            size += len(chunk)
            self.check_size(path, size)
            ratio(size)
            yield chunk
        self.total += size


def _refuse_mode(mode: int, path: str, filename: str) -> None:
    if stat.S_ISLNK(mode):
        raise UnsafeArchive(
            ArchiveRefusal.LINK,
            f"{filename}: member {_shown(path)} is a link",
            member=path,
        )
    if stat.S_IFMT(mode) and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise UnsafeArchive(
            ArchiveRefusal.SPECIAL_FILE,
            f"{filename}: member {_shown(path)} is not a regular file",
            member=path,
        )


def _stream_zip[T](
    source: BinaryIO,
    filename: str,
    limits: ArchiveLimits,
    sink: Callable[[str, Iterator[bytes]], T],
) -> dict[str, T]:
    budget = _Budget(limits, filename)
    out: dict[str, T] = {}
    with zipfile.ZipFile(source) as archive:
        infos = archive.infolist()
        budget.count(len(infos))
        for info in infos:
            # zipfile cuts a name at its first NUL; judge the name as stored.
            path = member_path(info.orig_filename, filename=filename)
            _refuse_mode((info.external_attr >> 16) & 0xFFFF, info.filename, filename)
            if info.is_dir() or path is None:
                continue
            if info.flag_bits & 0x1:
                raise UnsafeArchive(
                    ArchiveRefusal.ENCRYPTED_MEMBER,
                    f"{filename}: member {_shown(path)} is encrypted",
                    member=path,
                )
            budget.check_size(path, info.file_size)
            budget.check_ratio(path, info.file_size, info.compress_size)
            budget.claim(path)
            compressed = info.compress_size

            def ratio(
                size: int, path: str = path, compressed: int = compressed
            ) -> None:
                budget.check_ratio(path, size, compressed)

            with archive.open(info) as handle:
                out[path] = sink(
                    path,
                    budget.stream(path, partial(handle.read, CHUNK_BYTES), ratio),
                )
    return out


def _stream_tar[T](
    source: BinaryIO,
    filename: str,
    limits: ArchiveLimits,
    sink: Callable[[str, Iterator[bytes]], T],
) -> dict[str, T]:
    budget = _Budget(limits, filename)
    out: dict[str, T] = {}
    upload_bytes = source.seek(0, io.SEEK_END)
    source.seek(0)
    members = 0
    with gzip.GzipFile(fileobj=source) as stream:
        reader = TarReader(
            stream,
            max_header_bytes=limits.max_header_bytes,
            max_header_total_bytes=limits.max_header_total_bytes,
        )
        while (entry := reader.next()) is not None:
            members += 1
            budget.count(members)
            path = member_path(entry.name, filename=filename)
            if entry.kind is TarKind.LINK:
                raise UnsafeArchive(
                    ArchiveRefusal.LINK,
                    f"{filename}: member {_shown(entry.name)} is a link",
                    member=entry.name,
                )
            if entry.kind is TarKind.DIRECTORY or path is None:
                continue
            if entry.kind is not TarKind.FILE:
                raise UnsafeArchive(
                    ArchiveRefusal.SPECIAL_FILE,
                    f"{filename}: member {_shown(entry.name)} is not a regular file",
                    member=entry.name,
                )
            budget.check_size(path, entry.size)
            # The whole stream is one compressed unit, so the ratio is judged
            # on everything expanded so far against the whole upload.
            budget.check_ratio(path, budget.total + entry.size, upload_bytes)
            budget.claim(path)

            def ratio(size: int, path: str = path) -> None:
                budget.check_ratio(path, budget.total + size, upload_bytes)

            chunks = reader.chunks(CHUNK_BYTES)
            out[path] = sink(
                path, budget.stream(path, partial(next, chunks, b""), ratio)
            )
    return out


def _collect(path: str, chunks: Iterator[bytes]) -> bytes:
    return b"".join(chunks)


def stream_pack_archive[T](
    source: BinaryIO,
    *,
    filename: str,
    sink: Callable[[str, Iterator[bytes]], T],
    limits: ArchiveLimits | None = None,
) -> dict[str, T]:
    """Hand every regular file of a zip or tar.gz archive to ``sink`` as it
    is read: ``sink(path, chunks)`` gets the normalised path and an iterator
    of the member's bytes (at most ``CHUNK_BYTES`` each; it must read them
    all), and returns what the result keeps for that path.

    ``source`` is a seekable binary file. Memory stays bounded by the chunk
    size and the limits, not by the archive. Directories are implied by
    paths and not returned. Raises ``UnsafeArchive`` (code = the
    ``ArchiveRefusal``) on the first violation, possibly from inside
    ``sink``'s reading, so a sink that writes must undo its write when
    reading raises. The result is sorted by path.
    """
    limits = limits or ArchiveLimits()
    try:
        magic = source.read(4)
        source.seek(0)
        if magic in (b"PK\x03\x04", b"PK\x05\x06"):
            out = _stream_zip(source, filename, limits, sink)
        elif magic[:2] == b"\x1f\x8b":
            out = _stream_tar(source, filename, limits, sink)
        else:
            raise UnsafeArchive(
                ArchiveRefusal.UNSUPPORTED_FORMAT,
                f"{filename}: not a zip or tar.gz archive",
            )
    except UnsafeArchive:
        raise
    except TarRefused as error:
        reason = ArchiveRefusal(error.problem.value)
        raise UnsafeArchive(reason, f"{filename}: {error.message}") from None
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        NotImplementedError,
        ValueError,
    ) as error:
        raise UnsafeArchive(
            ArchiveRefusal.CORRUPT_ARCHIVE, f"{filename}: archive is corrupt: {error}"
        ) from None
    return {path: out[path] for path in sorted(out)}


def extract_pack_archive(
    data: bytes, *, filename: str, limits: ArchiveLimits | None = None
) -> dict[str, bytes]:
    """Every regular file of a zip or tar.gz archive, by normalised path, in
    memory (``stream_pack_archive`` with a sink that keeps the bytes)."""
    return stream_pack_archive(
        io.BytesIO(data), filename=filename, sink=_collect, limits=limits
    )


def split_pack_paths(paths: Iterable[str]) -> tuple[str, dict[str, str]]:
    """The path of a pack's root manifest, and its extra files as
    ``{path inside the pack: path as given}``.

    The manifest is ``manifest.json`` at the root, or inside the single
    top-level folder that wraps everything (the shape of most archives made
    from a folder). Raises ``SchemaInvalid`` when there is no root manifest.
    """
    every = sorted(paths)
    prefix = ""
    if MANIFEST_NAME not in every:
        tops = {path.split("/", 1)[0] for path in every}
        wrapped = len(tops) == 1 and all("/" in path for path in every)
        top = next(iter(tops)) if wrapped else ""
        if not wrapped or f"{top}/{MANIFEST_NAME}" not in every:
            problem = SchemaProblem(
                "$",
                "missing_manifest",
                "benchmark pack must contain a root manifest.json",
            )
            raise SchemaInvalid("benchmark pack has no manifest", problems=[problem])
        prefix = f"{top}/"
    manifest = prefix + MANIFEST_NAME
    extra = {path[len(prefix) :]: path for path in every if path != manifest}
    return manifest, extra


def pack_from_files(files: Mapping[str, bytes]) -> tuple[Any, dict[str, bytes]]:
    """Split a pack's files into the parsed root manifest and the extra files
    (``split_pack_paths`` says which is which).

    The manifest document is parsed, not validated: the caller validates it
    with its feature flags. Raises ``SchemaInvalid`` when there is no root
    manifest or it is not JSON.
    """
    manifest, extra = split_pack_paths(files)
    document = parse_json_document(files[manifest], what=MANIFEST_NAME)
    return document, {path: files[original] for path, original in extra.items()}
