"""Hostile inputs shared by the tests: crafted archives and strings."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

MANIFEST = b'{"schemaVersion": 1}'


def header(
    name: bytes, kind: bytes, size: int, *, magic: bytes = b"ustar\x0000"
) -> bytes:
    block = bytearray(512)
    block[0 : len(name)] = name[:100]
    block[100:108] = b"0000644\x00"
    block[108:116] = b"0000000\x00"
    block[116:124] = b"0000000\x00"
    block[124:136] = b"%011o\x00" % size
    block[136:148] = b"00000000000\x00"
    block[148:156] = b" " * 8
    block[156:157] = kind
    block[257:265] = magic
    block[148:156] = b"%06o\x00 " % sum(block)
    return bytes(block)


def pad(data: bytes) -> bytes:
    return data + bytes(-len(data) % 512)


def gzip_chunks(chunks: Iterable[bytes]) -> bytes:
    """gzip of the concatenated chunks, compressed as a stream."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [compressor.compress(chunk) for chunk in chunks]
    out.append(compressor.flush())
    return b"".join(out)


def huge_extension(kind: bytes, size: int) -> bytes:
    """A gzip tar whose first header is a ``kind`` extension of ``size`` bytes
    (a valid PAX record or long name), followed by a regular manifest."""
    if kind == b"x":
        prefix = b"%d comment=" % size
        body_len = size - len(prefix) - 1
        first, filler, last = prefix, b"A" * body_len, b"\n"
    else:
        first, filler, last = b"", b"n" * (size - 1), b"\x00"

    def chunks() -> Iterator[bytes]:
        yield header(b"././@Header", kind, size)
        yield first
        step = 1 << 20
        for start in range(0, len(filler), step):
            yield filler[start : start + step]
        yield last + bytes(-size % 512)
        yield header(b"manifest.json", b"0", len(MANIFEST)) + pad(MANIFEST)
        yield bytes(1024)

    return gzip_chunks(chunks())
