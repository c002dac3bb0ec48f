"""A list of HTTP headers written as one setting: ``Name=value,Name2=value2``.

The OTLP exporters' convention (``OTEL_EXPORTER_OTLP_HEADERS``): entries
separated by commas, values percent-decoded, blank entries skipped. Errors
name the entry by its position, never its value (headers hold credentials).
Deterministic, no I/O.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import unquote

# RFC 9110 token characters: what a header name may be made of.
TOKEN_CHARS: Final = frozenset(
    "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


class HeaderListInvalid(ValueError):
    """An entry of a header list cannot be used; the message says which."""


def parse_header_list(text: str, *, setting: str) -> tuple[tuple[str, str], ...]:
    """``text`` as (name, value) pairs in order; ``HeaderListInvalid`` naming
    ``setting`` and the entry otherwise."""
    pairs = []
    for index, entry in enumerate(text.split(","), start=1):
        if not entry.strip():
            continue
        name, equals, value = entry.partition("=")
        name = name.strip()
        where = f"{setting}: entry {index}"
        if not equals:
            raise HeaderListInvalid(f"{where} has no '=' (write Name=value)")
        if not name or not set(name) <= TOKEN_CHARS:
            raise HeaderListInvalid(f"{where} has no valid header name")
        decoded = unquote(value.strip())
        if any(ch in decoded for ch in "\r\n\0"):
            raise HeaderListInvalid(f"{where} has a line break in its value")
        pairs.append((name, decoded))
    return tuple(pairs)
