"""How text becomes search terms, the same way on every database.

Both backends index and match the *terms* of a text, never its raw words:
the text is put in Unicode compatibility form (NFKC), case-folded, its
accents removed (NFKD, combining marks dropped), and split into runs of
letters, digits and marks; a character of a script written without spaces
(Chinese, Japanese, Thai...) is a term of its own, so a word of such a script
is found as the phrase of its characters. PostgreSQL's and SQLite's own
tokenizers never see anything else, so a query finds the same documents on
both.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

# A document is indexed by its first MAX_TERMS terms (PostgreSQL's tsvector
# keeps positions up to 16383), each cut to MAX_TERM_CHARS characters
# (a lexeme may not exceed 2 kB).
MAX_TERMS = 16_000
MAX_TERM_CHARS = 60

# Scripts written without spaces between words: each character is a term.
_UNSPACED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x31FF),  # Bopomofo, Hangul compatibility, Katakana extension
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)


def _unspaced(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _UNSPACED)


def _word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LNM"


def fold(text: str) -> str:
    """``text`` in compatibility form, case-folded, without accents."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    decomposed = unicodedata.normalize("NFKD", folded)
    bare = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
    return unicodedata.normalize("NFC", bare)


def _split(folded: str) -> Iterator[str]:
    word: list[str] = []
    for char in folded:
        if _unspaced(char):
            if word:
                yield "".join(word)
                word = []
            yield char
        elif _word_char(char):
            word.append(char)
        elif word:
            yield "".join(word)
            word = []
    if word:
        yield "".join(word)


def terms(text: str, *, limit: int = MAX_TERMS) -> list[str]:
    """The terms of ``text`` in order (at most ``limit``)."""
    found: list[str] = []
    for term in _split(fold(text)):
        found.append(term[:MAX_TERM_CHARS])
        if len(found) >= limit:
            break
    return found


def terms_text(text: str) -> str:
    """The terms of ``text`` joined by single spaces: what the databases index."""
    return " ".join(terms(text))


def tsvector_literal(term_list: list[str]) -> str:
    """A PostgreSQL ``tsvector`` literal holding each term at its position
    (1-based), so PostgreSQL's parser never re-splits the terms."""
    positions: dict[str, list[int]] = {}
    for index, term in enumerate(term_list[:MAX_TERMS], start=1):
        positions.setdefault(term, []).append(index)
    return " ".join(
        f"{quote_lexeme(term)}:{','.join(map(str, spots[:256]))}"
        for term, spots in positions.items()
    )


def quote_lexeme(term: str) -> str:
    """``term`` quoted for a tsvector or tsquery literal."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
