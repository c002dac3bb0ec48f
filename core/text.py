"""Which characters a stored string, an identifier or a file name may hold.

Pure and deterministic. Three strictness levels, each a superset of the one
before:

- ``storable``: what PostgreSQL ``text``/``jsonb`` and UTF-8 encoding accept:
  no NUL and no lone surrogate (``\\ud800``).
- ``file name``: also no control character (C0, DEL, C1), no invisible
  format character (zero-width, bidi override) and no noncharacter
  (``U+FFFF``): names a person reads in a listing and a file system stores.
- ``identifier``: the same set as file names; look-alike ids (an id that
  renders like another one) are refused rather than normalised.

Each check returns the reason for the first offending character, or ``None``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

NAME_MAX_BYTES = 255
"""The longest path component most file systems store (POSIX NAME_MAX)."""

PATH_MAX_BYTES = 1024
"""The longest relative path kept inside an archive or an eval store."""


def _is_noncharacter(code: int) -> bool:
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


# Searched in C: every string of every ingested record passes here.
_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored as UTF-8 text, or ``None``."""
    if "\x00" in text:
        return "contains a NUL character (\\u0000)"
    if text.isascii():
        return None
    surrogate = _SURROGATE.search(text)
    if surrogate is not None:
        return f"contains a lone surrogate (\\u{ord(surrogate.group()):04x})"
    return None


def name_problem(text: str) -> str | None:
    """Why ``text`` is no safe identifier or file name, or ``None``.

    Refuses what ``storable_problem`` refuses, control characters, invisible
    format characters (category Cf: zero-width space and joiners, bidi
    embeddings, overrides and isolates, the BOM) and noncharacters.
    """
    problem = storable_problem(text)
    if problem is not None:
        return problem
    for char in text:
        code = ord(char)
        category = unicodedata.category(char)
        if category == "Cc":
            return f"contains a control character (\\u{code:04x})"
        if category == "Cf":
            return f"contains an invisible formatting character (\\u{code:04x})"
        if _is_noncharacter(code):
            return f"contains a Unicode noncharacter (\\u{code:04x})"
    return None


_ASCII_CONTROL = re.compile("[\x00-\x1f\x7f]")


def unsafe_identifiers(
    pairs: Iterable[tuple[str, str]],
) -> list[tuple[str, str]]:
    """``(label, reason)`` for every ``(label, text)`` whose text
    ``name_problem`` refuses (ids, tags: a control, zero-width, bidi or
    noncharacter makes one look like another). Plain printable ASCII, the
    usual case, is cleared in one pass over all the texts."""
    items = list(pairs)
    joined = "".join(text for _, text in items)
    if joined.isascii() and _ASCII_CONTROL.search(joined) is None:
        return []
    found: list[tuple[str, str]] = []
    for label, text in items:
        problem = name_problem(text)
        if problem is not None:
            found.append((label, problem))
    return found


def path_problem(path: str) -> str | None:
    """Why a relative ``/``-separated path cannot become a file, or ``None``.

    Applies ``name_problem`` and the byte limits a file system imposes on a
    component and on the whole path (UTF-8 encoded).
    """
    problem = name_problem(path)
    if problem is not None:
        return problem
    if len(path.encode()) > PATH_MAX_BYTES:
        return f"is longer than {PATH_MAX_BYTES} bytes"
    for part in path.split("/"):
        if len(part.encode()) > NAME_MAX_BYTES:
            return f"has a component longer than {NAME_MAX_BYTES} bytes"
    return None


def shorten(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters (with a note of what was cut) and
    made encodable: a lone surrogate becomes its ``\\udxxx`` escape."""
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit} more characters)"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def storable(text: str) -> str:
    """``text`` made storable as UTF-8 text, visibly: a NUL becomes the six
    characters ``\\u0000`` and a lone surrogate its ``\\udxxx`` escape."""
    if storable_problem(text) is None:
        return text
    escaped = text.replace("\x00", "\\u0000")
    return escaped.encode("utf-8", "backslashreplace").decode("utf-8")


INT_LIMIT = 2**63
"""Integers outside [-INT_LIMIT, INT_LIMIT) fit no 64-bit column."""


def unstorable_values(
    value: object, *, limit: int = 20
) -> list[tuple[tuple[str | int, ...], str]]:
    """``(path, reason)`` for every string, key or integer in a JSON value
    that no database column can store (see ``storable_problem``; integers
    outside 64 bits), at most ``limit`` of them, sorted by path."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[object, tuple[str | int, ...]]] = [(value, ())]
    while stack and len(found) < limit:
        item, path = stack.pop()
        if isinstance(item, str):
            problem = storable_problem(item)
            if problem is not None:
                found.append((path, f"value {problem}"))
        elif isinstance(item, int) and not isinstance(item, bool):
            if not -INT_LIMIT <= item < INT_LIMIT:
                found.append((path, "integer is out of range (64-bit signed)"))
        elif isinstance(item, dict):
            for key, child in item.items():
                key_text = str(key)
                problem = storable_problem(key_text)
                if problem is not None:
                    found.append(((*path, storable(key_text)), f"key {problem}"))
                else:
                    stack.append((child, (*path, key_text)))
        elif isinstance(item, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(item))
    return sorted(found, key=lambda entry: [str(part) for part in entry[0]])


def non_finite_numbers(value: Any, *, limit: int = 20) -> list[tuple[Any, ...]]:
    """Paths of numbers that are not finite (``1e400`` parses as infinity):
    JSON has no such numbers and no database column stores them."""
    found: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack and len(found) < limit:
        item, path = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            found.append(path)
        elif isinstance(item, dict):
            stack.extend((child, (*path, str(key))) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(item))
    return sorted(found, key=lambda path: [str(part) for part in path])


def json_path(parts: tuple[str | int, ...], *, root: str = "$") -> str:
    """``("a", 0, "b")`` as ``$.a[0].b`` (``root`` empty: ``a[0].b``)."""
    text = root
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = shorten(part, 60)
            text += f".{name}" if text else name
    return text or "$"
