"""The search query language, parsed once and compiled for each database.

A query is words, all of which a document must hold::

    creeper "iron golem" crafti* -night *reep OR zombie

- ``word``: the word (its terms, ``search.core.text``; a word that folds to
  several terms, ``foo-bar`` or ``世界``, is the phrase of them);
- ``"several words"``: those words next to each other, in that order;
- ``word*``: a word starting so (also the last word of a phrase: ``"iron gol"*``);
- ``*part``: a term containing ``part`` (3 characters or more);
- ``-word``, ``-"phrase"``, ``-*part``: documents without it;
- ``OR`` (or ``|``) between two groups of words: either group.

A query with nothing to find (empty, only punctuation or operators, a group
of only exclusions) is a ``QueryInvalid`` naming the field ``q``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from search.core.text import MAX_TERM_CHARS, quote_lexeme, terms

MAX_QUERY_CHARS = 500
MAX_QUERY_TERMS = 32
MIN_SUBSTRING_CHARS = 3

# A quoted phrase (a missing closing quote runs to the end), or a bare word.
_TOKEN = re.compile(r'(-?)"([^"]*)"?(\*?)|(\S+)')


class QueryInvalid(ValueError):
    """The query cannot be searched; ``field`` and ``reason`` say why."""

    def __init__(self, reason: str, *, field: str = "q") -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Term:
    """One condition: a phrase of terms (``prefix``: the last one is a
    prefix), or a substring of a term when ``substring`` is set."""

    words: tuple[str, ...] = ()
    prefix: bool = False
    substring: str = ""
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Group:
    """Conditions that must all hold."""

    terms: tuple[Term, ...]

    @property
    def positive(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if not t.negated)

    @property
    def negative(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if t.negated)


@dataclass(frozen=True, slots=True)
class Query:
    """Groups of conditions, any of which may hold."""

    text: str
    groups: tuple[Group, ...]


def _term(raw: str, *, quoted: bool, star: bool, negated: bool) -> Term | None:
    if not raw.strip("*"):
        return None
    if not quoted and raw.startswith("*"):
        part = " ".join(terms(raw.strip("*")))
        if len(part.replace(" ", "")) < MIN_SUBSTRING_CHARS:
            raise QueryInvalid(
                f"*{raw.strip('*')}: a part of a word needs at least "
                f"{MIN_SUBSTRING_CHARS} letters or digits."
            )
        return Term(substring=part, negated=negated)
    if not quoted and raw.endswith("*"):
        star, raw = True, raw.rstrip("*")
    words = tuple(terms(raw, limit=MAX_QUERY_TERMS + 1))
    if not words:
        return None
    return Term(words=words, prefix=star, negated=negated)


def parse(text: str) -> Query:
    """The query ``text`` as groups of conditions; ``QueryInvalid`` when it
    has nothing to find or is too long."""
    if "\x00" in text:
        text = text.replace("\x00", " ")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryInvalid(f"A query may be at most {MAX_QUERY_CHARS} characters.")
    groups: list[list[Term]] = [[]]
    count = 0
    for match in _TOKEN.finditer(text):
        minus, phrase, phrase_star, bare = match.groups()
        if bare is not None:
            if bare in ("OR", "|"):
                groups.append([])
                continue
            negated = bare.startswith("-") and len(bare) > 1
            term = _term(
                bare[1:] if negated else bare,
                quoted=False,
                star=False,
                negated=negated,
            )
        else:
            term = _term(
                phrase, quoted=True, star=bool(phrase_star), negated=bool(minus)
            )
        if term is None:
            continue
        count += max(1, len(term.words))
        if count > MAX_QUERY_TERMS:
            raise QueryInvalid(f"A query may hold at most {MAX_QUERY_TERMS} words.")
        groups[-1].append(term)
    kept = [Group(tuple(g)) for g in groups if g]
    if not kept:
        raise QueryInvalid(
            "The query has no word to look for (only punctuation or operators)."
        )
    for group in kept:
        if not group.positive:
            raise QueryInvalid(
                "Exclusions (-word) need a word to look for beside them."
            )
    return Query(text=text, groups=tuple(kept))


# -- SQLite FTS5 --------------------------------------------------------


def _fts5_phrase(term: Term) -> str:
    return '"' + " ".join(term.words) + '"' + (" *" if term.prefix else "")


def fts5_match(phrases: tuple[Term, ...], *, any_of: bool = False) -> str | None:
    """An FTS5 MATCH expression for the phrase terms (all of them, or any
    with ``any_of``); None when there is none."""
    parts = [_fts5_phrase(t) for t in phrases if not t.substring]
    if not parts:
        return None
    return (" OR " if any_of else " AND ").join(parts)


# -- PostgreSQL tsquery -------------------------------------------------


def _ts_phrase(term: Term, stems: Mapping[str, str]) -> str:
    lexemes = [quote_lexeme(w) for w in term.words]
    if term.prefix:
        lexemes[-1] += ":*"
    if len(lexemes) == 1:
        stem = stems.get(term.words[0])
        if not term.prefix and stem and stem != term.words[0]:
            return f"({lexemes[0]} | {quote_lexeme(stem)})"
        return lexemes[0]
    return "(" + " <-> ".join(lexemes) + ")"


def tsquery_literal(
    phrases: tuple[Term, ...],
    *,
    any_of: bool = False,
    stems: Mapping[str, str] | None = None,
) -> str | None:
    """A ``tsquery`` literal for the phrase terms (all, or any with
    ``any_of``); a single word also matches its stem from ``stems`` (its
    form in the language's dictionary). None when there is no phrase."""
    parts = [_ts_phrase(t, stems or {}) for t in phrases if not t.substring]
    if not parts:
        return None
    return (" | " if any_of else " & ").join(parts)


def plain_words(query: Query) -> set[str]:
    """The one-term, non-prefix words of the query (those a stem may widen)."""
    return {
        t.words[0]
        for g in query.groups
        for t in g.terms
        if len(t.words) == 1 and not t.prefix and len(t.words[0]) <= MAX_TERM_CHARS
    }


def like_pattern(part: str) -> str:
    """A LIKE pattern for a substring of the indexed terms (terms hold no
    ``%``, ``_`` or backslash: they are letters, digits and marks)."""
    return f"%{part}%"
