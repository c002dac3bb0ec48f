"""Safe extraction of uploaded benchmark-pack archives (zip and tar.gz).

Decides whether an uploaded archive may become a pack, entirely in memory:
nothing is written to disk here, so a refused archive leaves no trace.

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
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from core.errors import CoreError, SchemaInvalid, SchemaProblem
from core.text import name_problem, path_problem
from evals.core.format_rules import parse_json_document
from evals.core.tar import TarKind, TarReader, TarRefused

MANIFEST_NAME = "manifest.json"


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
        self.files: dict[str, bytes] = {}

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

    def add(self, path: str, content: bytes) -> None:
        self.check_size(path, len(content))
        if path in self.files:
            raise UnsafeArchive(
                ArchiveRefusal.DUPLICATE_MEMBER,
                f"{self.filename}: member {_shown(path)} appears more than once",
                member=path,
            )
        self.total += len(content)
        self.files[path] = content


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


def _extract_zip(data: bytes, filename: str, limits: ArchiveLimits) -> dict[str, bytes]:
    budget = _Budget(limits, filename)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
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
            with archive.open(info) as handle:
                content = handle.read(limits.max_member_bytes + 1)
            budget.check_ratio(path, len(content), info.compress_size)
            budget.add(path, content)
    return budget.files


def _extract_tar(data: bytes, filename: str, limits: ArchiveLimits) -> dict[str, bytes]:
    budget = _Budget(limits, filename)
    members = 0
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
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
            budget.check_ratio(path, budget.total + entry.size, len(data))
            budget.add(path, reader.read())
    return budget.files


def extract_pack_archive(
    data: bytes, *, filename: str, limits: ArchiveLimits | None = None
) -> dict[str, bytes]:
    """Every regular file of a zip or tar.gz archive, by normalised path.

    Directories are implied by paths and not returned. Raises
    ``UnsafeArchive`` (code = the ``ArchiveRefusal``) on the first violation;
    the result is sorted by path.
    """
    limits = limits or ArchiveLimits()
    try:
        if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            files = _extract_zip(data, filename, limits)
        elif data[:2] == b"\x1f\x8b":
            files = _extract_tar(data, filename, limits)
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
    return {path: files[path] for path in sorted(files)}


def pack_from_files(files: Mapping[str, bytes]) -> tuple[Any, dict[str, bytes]]:
    """Split a pack's files into the parsed root manifest and the extra files.

    The manifest is ``manifest.json`` at the root, or inside the single
    top-level folder that wraps everything (the shape of most archives made
    from a folder). The manifest document is parsed, not validated: the caller
    validates it with its feature flags. Raises ``SchemaInvalid`` when there
    is no root manifest or it is not JSON.
    """
    prefix = ""
    if MANIFEST_NAME not in files:
        tops = {path.split("/", 1)[0] for path in files}
        wrapped = len(tops) == 1 and all("/" in path for path in files)
        top = next(iter(tops)) if wrapped else ""
        if not wrapped or f"{top}/{MANIFEST_NAME}" not in files:
            problem = SchemaProblem(
                "$",
                "missing_manifest",
                "benchmark pack must contain a root manifest.json",
            )
            raise SchemaInvalid("benchmark pack has no manifest", problems=[problem])
        prefix = f"{top}/"
    document = parse_json_document(files[prefix + MANIFEST_NAME], what=MANIFEST_NAME)
    extra = {
        path[len(prefix) :]: content
        for path, content in sorted(files.items())
        if path != prefix + MANIFEST_NAME
    }
    return document, extra
