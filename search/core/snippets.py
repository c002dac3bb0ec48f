"""Highlighted snippets: the part of a text around the first place a query
matched, HTML-escaped, each matching word wrapped in ``<mark>``."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from search.core.query import Query
from search.core.text import fold, terms

SNIPPET_CHARS = 240

# A run of characters that are not separators: where words may start and end.
_WORDISH = re.compile(r"[^\W_]+|[\u0300-\u036f]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Wanted:
    """What a highlight looks for: exact terms, term prefixes, substrings."""

    exact: frozenset[str]
    prefixes: tuple[str, ...]
    parts: tuple[str, ...]

    def matches(self, term: str) -> bool:
        return (
            term in self.exact
            or any(term.startswith(p) for p in self.prefixes)
            or any(p in term for p in self.parts)
        )


def wanted(query: Query) -> Wanted:
    """The terms the query's positive conditions look for."""
    exact: set[str] = set()
    prefixes: list[str] = []
    parts: list[str] = []
    for group in query.groups:
        for term in group.positive:
            if term.substring:
                parts.extend(term.substring.split())
                continue
            words = list(term.words)
            if term.prefix:
                prefixes.append(words.pop())
            exact.update(words)
    return Wanted(frozenset(exact), tuple(prefixes), tuple(parts))


def _spans(text: str, want: Wanted) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    for match in _WORDISH.finditer(text):
        word = match.group(0)
        folded = terms(word)
        if len(folded) == 1:
            if want.matches(folded[0]):
                found.append(match.span())
            continue
        # A run of characters that folds to several terms (CJK): mark the
        # matching characters one by one.
        for offset, char in enumerate(word):
            term = fold(char)
            if term and want.matches(term):
                start = match.start() + offset
                found.append((start, start + 1))
    return found


def snippet(text: str, query: Query, *, width: int = SNIPPET_CHARS) -> str:
    """HTML: up to ``width`` characters of ``text`` around its first match,
    escaped, with ``<mark>`` around each matching word (the text's start
    when nothing matches there, as for a match a stem made)."""
    want = wanted(query)
    spans = _spans(text, want)
    first = spans[0][0] if spans else 0
    start = max(0, first - width // 3)
    if start:
        space = text.rfind(" ", 0, start + 1)
        start = space + 1 if space > start - 20 else start
    end = min(len(text), start + width)
    pieces: list[str] = ["\u2026" if start else ""]
    cursor = start
    for low, high in spans:
        if high <= start or low < cursor:
            continue
        if low >= end:
            break
        high = min(high, end)
        pieces.append(html.escape(text[cursor:low]))
        pieces.append(f"<mark>{html.escape(text[low:high])}</mark>")
        cursor = high
    pieces.append(html.escape(text[cursor:end]))
    if end < len(text):
        pieces.append("\u2026")
    return "".join(pieces).replace("\x00", "")
