"""The database's part of search: writing a document's full-text entry and
the SQL condition a parsed query becomes, on PostgreSQL and on SQLite.

Both match the folded terms of ``search.core.text`` and nothing else, so a
query finds the same documents on either. PostgreSQL adds one thing: a
single word also matches its stem in ``SEARCH_LANGUAGE`` (default
``english``: "creepers" finds "creeper"); ``simple`` turns that off.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.db import connection

from search.core.query import (
    Group,
    Query,
    fts5_match,
    like_pattern,
    plain_words,
    tsquery_literal,
)
from search.core.text import terms, tsvector_literal

# The conditions, written out in full (no value is ever spliced into SQL:
# queries and patterns go in as parameters).
# Written bare so the planner sees the @@ operator and walks the GIN index
# (a COALESCE around it hides the index); its negation is NULL-safe.
_TSV_TEST = "search_searchdocument.tsv @@ %s::tsquery"
_TSV_NOT = "NOT COALESCE(search_searchdocument.tsv @@ %s::tsquery, false)"
_FTS_TEST = (
    "search_searchdocument.id IN "
    "(SELECT rowid FROM search_fts WHERE search_fts MATCH %s)"
)
_LIKE = "search_searchdocument.terms LIKE %s"
_NOT_LIKE = "search_searchdocument.terms NOT LIKE %s"
# One statement per batch: the ids and tsvector literals go in as arrays.
_WRITE_ENTRIES = (
    "UPDATE search_searchdocument AS d SET tsv = v.lit::tsvector || "
    "to_tsvector(%s::regconfig, left(d.text, 100000)) "
    "FROM unnest(%s::bigint[], %s::text[]) AS v(id, lit) WHERE d.id = v.id"
)
_CONFIG_NAME = re.compile(r"^[a-z_]{1,40}$")


def language() -> str:
    """The text search configuration of ``SEARCH_LANGUAGE`` (a plain name;
    ``simple`` when the setting is not one)."""
    name = str(getattr(settings, "SEARCH_LANGUAGE", "english")).lower()
    return name if _CONFIG_NAME.match(name) else "simple"


def vendor() -> str:
    return connection.vendor


def write_entries(rows: Sequence[tuple[int, str]]) -> None:
    """Fill the full-text entry of the documents (id, text) on PostgreSQL:
    the terms at their positions, plus the language's word forms. (SQLite's
    FTS5 table follows the documents by triggers.)"""
    if vendor() != "postgresql" or not rows:
        return
    ids = [pk for pk, _ in rows]
    literals = [tsvector_literal(terms(text)) for _, text in rows]
    with connection.cursor() as cursor:
        cursor.execute(_WRITE_ENTRIES, [language(), ids, literals])


def stems(words: Iterable[str]) -> dict[str, str]:
    """Each word's single stem in the search language, on PostgreSQL ({}
    elsewhere, for ``simple``, or for a stop word)."""
    words = sorted(set(words))
    if vendor() != "postgresql" or not words or language() == "simple":
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w, array_to_string(tsvector_to_array("
            "to_tsvector(%s::regconfig, w)), ' ') FROM unnest(%s::text[]) AS w",
            [language(), words],
        )
        found = cursor.fetchall()
    return {w: s for w, s in found if s and " " not in s}


def _group_sql(group: Group, stem_map: dict[str, str]) -> tuple[str, list[Any]]:
    parts: list[str] = []
    params: list[Any] = []
    pg = vendor() == "postgresql"
    for negated, chosen in ((False, group.positive), (True, group.negative)):
        if pg:
            literal = tsquery_literal(chosen, any_of=negated, stems=stem_map)
            if literal is not None:
                parts.append(_TSV_NOT if negated else _TSV_TEST)
                params.append(literal)
        else:
            match = fts5_match(chosen, any_of=negated)
            if match is not None:
                test = _FTS_TEST
                parts.append(f"NOT ({test})" if negated else test)
                params.append(match)
        for term in chosen:
            if term.substring:
                parts.append(_NOT_LIKE if negated else _LIKE)
                params.append(like_pattern(term.substring))
    return "(" + " AND ".join(parts) + ")", params


def match_condition(query: Query) -> tuple[str, list[Any]]:
    """A WHERE condition (SQL with %s parameters) that holds for the
    documents the query finds."""
    stem_map = stems(plain_words(query))
    pieces = [_group_sql(group, stem_map) for group in query.groups]
    sql = " OR ".join(p for p, _ in pieces)
    params = [value for _, group_params in pieces for value in group_params]
    return f"({sql})", params
