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

import unicodedata

NAME_MAX_BYTES = 255
"""The longest path component most file systems store (POSIX NAME_MAX)."""

PATH_MAX_BYTES = 1024
"""The longest relative path kept inside an archive or an eval store."""


def _is_noncharacter(code: int) -> bool:
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


def storable_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored as UTF-8 text, or ``None``."""
    if "\x00" in text:
        return "contains a NUL character (\\u0000)"
    for char in text:
        if 0xD800 <= ord(char) <= 0xDFFF:
            return f"contains a lone surrogate (\\u{ord(char):04x})"
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
