"""A bounded reader of tar streams (ustar, GNU and PAX headers).

Python's ``tarfile`` reads a PAX (``x``/``g``) or GNU long-name (``L``/``K``)
header payload fully into memory inside ``next()``, whatever its declared
size, before a caller can look at it: a 1 MB gzip upload can hold a 1 GB
"header". This reader parses the headers itself and refuses, before reading
it, any extension payload above ``max_header_bytes`` and more than
``max_header_total_bytes`` of them in one archive, so memory and work stay
bounded by the limits, not by the upload.

Only what a benchmark pack needs is understood: regular files, directories,
and the extension headers that carry long names and sizes. Everything else
is reported as a kind the caller refuses. Names are UTF-8 (strict); a NUL
inside a name field (which ``tarfile`` silently truncates at) is refused.
Deterministic; reads only from the stream it is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

BLOCK = 512
_SKIP_CHUNK = 64 * 1024
_MAX_EXTENSIONS_IN_A_ROW = 8
_POSIX_MAGIC = b"ustar\x00"


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class TarKind(StrEnum):
    FILE = "file"
    DIRECTORY = "directory"
    LINK = "link"
    SPECIAL = "special"


class TarProblem(StrEnum):
    HEADER_TOO_LARGE = "header_too_large"
    UNSAFE_NAME = "unsafe_name"
    CORRUPT = "corrupt_archive"


class TarRefused(Exception):
    """The stream is no tar archive this reader accepts; ``problem`` says why."""

    def __init__(self, problem: TarProblem, message: str) -> None:
        super().__init__(message)
        self.problem = problem
        self.message = message


@dataclass(frozen=True, slots=True)
class TarEntry:
    name: str
    kind: TarKind
    size: int


_KINDS = {
    b"0": TarKind.FILE,
    b"\x00": TarKind.FILE,
    b"7": TarKind.FILE,
    b"5": TarKind.DIRECTORY,
    b"1": TarKind.LINK,
    b"2": TarKind.LINK,
}
_EXTENSIONS = (b"x", b"g", b"L", b"K")


def _number(field: bytes) -> int:
    """A numeric header field: octal text, or GNU base-256 (high bit set)."""
    if field[:1] in (b"\x80", b"\xff"):
        if field[0] == 0xFF:
            raise TarRefused(TarProblem.CORRUPT, "negative number in a tar header")
        value = 0
        for byte in field[1:]:
            value = (value << 8) | byte
        return value
    text = field.split(b"\x00", 1)[0].strip(b" ")
    if not text:
        return 0
    try:
        return int(text, 8)
    except ValueError:
        raise TarRefused(TarProblem.CORRUPT, "invalid number in a tar header") from None


def _name(raw: bytes, *, what: str) -> str:
    """A NUL-padded name field: refused when text follows a NUL or it is not
    UTF-8."""
    text, _, rest = raw.partition(b"\x00")
    if rest.strip(b"\x00"):
        raise TarRefused(
            TarProblem.UNSAFE_NAME, f"a {what} has a NUL character inside it"
        )
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise TarRefused(TarProblem.UNSAFE_NAME, f"a {what} is not UTF-8") from None


def _pax_records(payload: bytes) -> dict[str, bytes]:
    """``"<len> key=value\\n"`` records of a PAX extended header."""
    records: dict[str, bytes] = {}
    position = 0
    while position < len(payload) and payload[position:].strip(b"\x00"):
        space = payload.find(b" ", position, position + 20)
        if space < 0:
            raise TarRefused(TarProblem.CORRUPT, "malformed PAX header record")
        try:
            length = int(payload[position:space])
        except ValueError:
            raise TarRefused(
                TarProblem.CORRUPT, "malformed PAX header record"
            ) from None
        record = payload[space + 1 : position + length]
        if length <= space - position or not record.endswith(b"\n"):
            raise TarRefused(TarProblem.CORRUPT, "malformed PAX header record")
        key, equals, value = record[:-1].partition(b"=")
        if not equals:
            raise TarRefused(TarProblem.CORRUPT, "malformed PAX header record")
        records[key.decode("utf-8", "replace")] = value
        position += length
    return records


class TarReader:
    """Walks a tar stream entry by entry with bounded reads.

    ``next()`` returns the next file, directory, link or special entry (with
    the long name and size of its extension headers applied), or ``None`` at
    the end; ``read()`` returns the current entry's content. Content not read
    is skipped in bounded chunks; ``chunks()`` streams it.
    """

    def __init__(
        self,
        stream: Readable,
        *,
        max_header_bytes: int,
        max_header_total_bytes: int,
    ) -> None:
        self._stream = stream
        self._max_header = max_header_bytes
        self._header_budget = max_header_total_bytes
        self._pending = 0
        self._current: TarEntry | None = None

    def _read_exact(self, size: int) -> bytes:
        data = self._stream.read(size)
        if len(data) != size:
            raise TarRefused(TarProblem.CORRUPT, "unexpected end of the tar data")
        return data

    def _skip_pending(self) -> None:
        while self._pending:
            chunk = self._read_exact(min(self._pending, _SKIP_CHUNK))
            self._pending -= len(chunk)

    def _header(self) -> bytes | None:
        block = self._stream.read(BLOCK)
        if not block or not block.strip(b"\x00"):
            return None
        if len(block) != BLOCK:
            raise TarRefused(TarProblem.CORRUPT, "unexpected end of the tar data")
        stored = _number(block[148:156])
        unsigned = sum(block[:148]) + 8 * 32 + sum(block[156:])
        if stored != unsigned:
            raise TarRefused(TarProblem.CORRUPT, "bad checksum in a tar header")
        return block

    def _extension(self, kind: bytes, size: int) -> bytes:
        label = "PAX" if kind in (b"x", b"g") else "long-name"
        if size > self._max_header or size > self._header_budget:
            limit = min(self._max_header, self._header_budget)
            raise TarRefused(
                TarProblem.HEADER_TOO_LARGE,
                f"a {label} header of {size} bytes exceeds the {limit}-byte limit",
            )
        self._header_budget -= size
        padded = -(-size // BLOCK) * BLOCK
        return self._read_exact(padded)[:size]

    def next(self) -> TarEntry | None:
        self._skip_pending()
        long_name: str | None = None
        pax: dict[str, bytes] = {}
        for _ in range(_MAX_EXTENSIONS_IN_A_ROW + 1):
            block = self._header()
            if block is None:
                return None
            kind = block[156:157]
            size = _number(block[124:136])
            if kind in _EXTENSIONS:
                payload = self._extension(kind, size)
                if kind == b"L":
                    long_name = _name(payload, what="long member name")
                elif kind == b"x":
                    pax.update(_pax_records(payload))
                continue
            return self._entry(block, kind, size, long_name, pax)
        raise TarRefused(
            TarProblem.CORRUPT,
            f"more than {_MAX_EXTENSIONS_IN_A_ROW} extension headers in a row",
        )

    def _entry(
        self,
        block: bytes,
        kind: bytes,
        size: int,
        long_name: str | None,
        pax: dict[str, bytes],
    ) -> TarEntry:
        name = _name(block[0:100], what="member name")
        if block[257:263] == _POSIX_MAGIC:
            prefix = _name(block[345:500], what="member name prefix")
            if prefix:
                name = f"{prefix}/{name}"
        if long_name is not None:
            name = long_name
        if "path" in pax:
            try:
                name = pax["path"].decode("utf-8")
            except UnicodeDecodeError:
                raise TarRefused(
                    TarProblem.UNSAFE_NAME, "a PAX member path is not UTF-8"
                ) from None
        if "size" in pax:
            try:
                size = int(pax["size"])
            except ValueError:
                size = -1
            if size < 0:
                raise TarRefused(TarProblem.CORRUPT, "invalid size in a PAX header")
        entry_kind = _KINDS.get(kind, TarKind.SPECIAL)
        if entry_kind is TarKind.FILE and kind == b"\x00" and name.endswith("/"):
            entry_kind = TarKind.DIRECTORY
        if entry_kind is TarKind.FILE:
            self._pending = -(-size // BLOCK) * BLOCK
        self._current = TarEntry(name=name, kind=entry_kind, size=size)
        return self._current

    def read(self) -> bytes:
        """The current file entry's whole content (its size was checked by the
        caller before calling this)."""
        if self._current is None or self._current.kind is not TarKind.FILE:
            return b""
        padded = self._pending
        data = self._read_exact(padded)[: self._current.size]
        self._pending = 0
        return data

    def chunks(self, size: int) -> Iterator[bytes]:
        """The current file entry's content in chunks of at most ``size``
        bytes; the block padding after it is skipped by ``next()``."""
        if self._current is None or self._current.kind is not TarKind.FILE:
            return
        remaining = self._current.size
        while remaining:
            data = self._read_exact(min(remaining, size))
            self._pending -= len(data)
            remaining -= len(data)
            yield data
