"""Hostile inputs shared by the tests: crafted archives and strings."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

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


# --- hostile values and bodies for the API ----------------------------------

HOSTILE_STRINGS: list[tuple[str, str]] = [
    ("nul", "a\u0000b"),
    ("lone-surrogate", "x\ud800y"),
    ("bidi-override", "evil\u202egnp.exe"),
    ("zero-width", "ad\u200bmin"),
    ("noncharacter", "x\uffff"),
    ("control", "a\x07b"),
    ("over-varchar", "v" * 300),
    ("over-file-name", "f" * 5000),
    ("1MB", "m" * (1 << 20)),
    ("100k-lines", "line\n" * 100_000),
    ("parent-path", "../../etc/passwd"),
    ("percent-nul", "%00"),
    ("empty", ""),
    ("nan-text", "NaN"),
    ("infinity-text", "-Infinity"),
    ("overflow-text", "1e999"),
]

HOSTILE_NUMBERS: list[tuple[str, Any]] = [
    ("nan", float("nan")),
    ("infinity", float("-inf")),
    ("huge-int", 10**40),
    ("negative", -1),
    ("null", None),
    ("list", []),
    ("object", {}),
    ("true", True),
]


def hostile_bodies(template: Any, limit: int) -> list[tuple[str, bytes, str]]:
    """(label, raw body, content type): whole bodies no endpoint may store."""
    text = json.dumps(template)
    json_type = "application/json"
    return [
        ("deep-nesting", b"[" * 100_000 + b"]" * 100_000, json_type),
        ("over-the-limit", b'{"x": "' + b"a" * limit + b'"}', json_type),
        ("bom", b"\xef\xbb\xbf" + text.encode(), json_type),
        ("utf-16", text.encode("utf-16"), json_type),
        ("not-utf-8", b'{"x": "\xff\xfe\xfa"}', json_type),
        ("nan-literal", b'{"x": NaN, "y": Infinity}', json_type),
        ("100k-items", json.dumps(list(range(100_000))).encode(), json_type),
        ("empty", b"", json_type),
        ("null", b"null", json_type),
        ("string", b'"\\u0000"', json_type),
        ("truncated", text.encode()[:-1], json_type),
        ("form-nul", b"content=%00&executor=%00", "application/x-www-form-urlencoded"),
    ]


def hostile_files() -> list[tuple[str, bytes]]:
    """(label, content) of files no reader may crash on."""
    manifest = {
        "schemaVersion": 1,
        "benchmarkId": "p",
        "title": "T",
        "cases": [{"id": "c", "prompt": "p"}],
    }
    text = json.dumps(manifest)
    return [
        ("not-utf-8", b'{"title": "caf\xe9"}'),
        ("bom", b"\xef\xbb\xbf" + text.encode()),
        ("utf-16", text.encode("utf-16")),
        ("raw-nul", text.encode()[:20] + b"\x00" + text.encode()[20:]),
        ("nul-escape", text.replace('"T"', '"T\\u0000"').encode()),
        ("surrogate-escape", text.replace('"T"', '"\\ud800"').encode()),
        ("bidi-id", text.replace('"p", "title"', '"p\\u202e", "title"').encode()),
        ("deep", b"[" * 100_000 + b"]" * 100_000),
        ("nan", text.replace('"schemaVersion": 1', '"schemaVersion": NaN').encode()),
        ("1MB-string", text.replace('"T"', json.dumps("m" * (1 << 20))).encode()),
        ("100k-lines", b"{}\n" * 100_000),
        ("empty", b""),
        (
            "huge-int",
            text.replace('"schemaVersion": 1', '"schemaVersion": 1e400').encode(),
        ),
        (
            "big-int",
            text.replace('"schemaVersion": 1', '"schemaVersion": ' + "9" * 30).encode(),
        ),
    ]
