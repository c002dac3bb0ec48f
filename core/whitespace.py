"""JavaScript's whitespace class (``\\s``), as the reference pipeline and
harness use it, and collapsing its runs to one space.

Pure. ``collapse_js_whitespace`` answers as JavaScript's
``text.replace(/\\s+/g, " ").trim()``, character for character, but
without a regex: a substitution pays for every run it replaces, even a
single space by a single space (half a million of them in a megabyte of
``"a b "``), and the sanitizer runs it on every thought, whose text is
untrusted and may be a megabyte long.
"""

from __future__ import annotations

from typing import Final

JS_SPACE_CLASS: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""The body of a regex character class: JavaScript's ``\\s``."""

JS_SPACE_CHARS: Final = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""The same characters, one by one (for ``str.strip``)."""

_NON_ASCII_JS_SPACE: Final = tuple(c for c in JS_SPACE_CHARS if not c.isascii())
_ASCII_JS_SPACE: Final = ("\t", "\n", "\v", "\f", "\r")


def collapse_js_whitespace(text: str) -> str:
    """Every run of JavaScript whitespace (newlines too) as one space, and
    none at either end.

    Only ``str.replace`` passes, each in C over the whole string: every
    whitespace character becomes a space, then doubled spaces halve until
    none is left (as many passes as the longest run has binary digits). No
    per-word objects, so no input is dearer than a few passes over it.
    """
    if not text.isascii():
        for space in _NON_ASCII_JS_SPACE:
            if space in text:
                text = text.replace(space, " ")
    for space in _ASCII_JS_SPACE:
        if space in text:
            text = text.replace(space, " ")
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(" ")
