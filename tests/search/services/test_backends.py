"""The same query finds the same documents on SQLite (FTS5) and on
PostgreSQL (tsvector + GIN, trigram): one corpus with non-English text,
punctuation and prefixes, one table of expected answers, run on each
database (the ``postgres`` variants need DATABASE_URL=postgres://...).

With ``SEARCH_LANGUAGE=simple`` the answers are identical; with the default
``english``, PostgreSQL also matches a single word's English forms, and
finds exactly the listed extra documents (SQLite answers as before)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.db import connection, transaction

from search.core.query import parse
from search.models import SearchDocument
from search.selectors import matching
from search.services import backends
from search.services.indexer import store
from tests.search.corpus import ENGLISH_EXTRA, EXPECTED, corpus_docs

VENDORS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


@pytest.fixture
def corpus(request: pytest.FixtureRequest, settings: object, db: None) -> str:
    params = request.node.callspec.params
    vendor = params["vendor"]
    if connection.vendor != vendor:
        pytest.skip(f"this run's database is {connection.vendor}, not {vendor}")
    settings.SEARCH_LANGUAGE = params.get("language", "english")  # type: ignore[attr-defined]
    with transaction.atomic():
        store(list(corpus_docs().values()))
    return vendor


def _found(query: str) -> set[str]:
    docs = matching(SearchDocument.objects.all(), parse(query))
    return set(docs.values_list("ref", flat=True))


@pytest.mark.parametrize("language", ["simple"])
@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("query", sorted(EXPECTED))
def test_a_query_finds_the_same_documents_on_every_database(
    query: str, vendor: str, language: str, corpus: str
) -> None:
    assert _found(query) == EXPECTED[query]


@pytest.mark.parametrize("language", ["english"])
@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("query", sorted(EXPECTED))
def test_with_english_postgres_adds_only_the_word_forms(
    query: str, vendor: str, language: str, corpus: str
) -> None:
    extra = ENGLISH_EXTRA.get(query, set()) if corpus == "postgresql" else set()
    assert _found(query) == EXPECTED[query] | extra


@pytest.mark.parametrize("vendor", VENDORS)
def test_results_come_newest_first(vendor: str, corpus: str) -> None:
    docs = matching(SearchDocument.objects.all(), parse("zombie"))
    assert list(docs.values_list("ref", flat=True)) == ["mixed", "nul_and_emoji"]


@pytest.mark.parametrize("vendor", VENDORS)
def test_an_edited_document_is_found_by_its_new_text_only(
    vendor: str, corpus: str
) -> None:
    doc = corpus_docs()["creeper"]
    with transaction.atomic():
        store([replace(doc, text="A skeleton shot an arrow.")])
    assert "creeper" not in _found("exploded")
    assert _found("skeleton") == {"creeper"}


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_deleted_document_is_no_longer_found(vendor: str, corpus: str) -> None:
    SearchDocument.objects.filter(ref="russian").delete()
    assert _found("крипер") == set()


def test_an_unknown_language_setting_falls_back_to_simple(settings: object) -> None:
    settings.SEARCH_LANGUAGE = "english; DROP TABLE x"  # type: ignore[attr-defined]
    assert backends.language() == "simple"
