"""A search walks the GIN indexes on PostgreSQL: the tsvector index for
words, phrases and prefixes, the trigram index for ``*part`` queries; never
a sequential scan of the documents (its cost would grow with the table,
not with the answer). 20,000 documents over 20 agents, statistics fresh."""

from __future__ import annotations

import pytest
from django.db import connection

from search.core.filters import Filters
from search.core.query import parse
from search.models import SearchDocument
from search.selectors import documents_visible, filtered, matching
from tests.builders import T0
from tests.query_plans import nodes, outline, queryset_plan

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

ROWS = 20_000
TABLE = "search_searchdocument"

SEED = """
INSERT INTO search_searchdocument (kind, ref, source_id, subject, subject_ref,
  agent_id, run_id, suite_id, queue_id, eligible, flags, title, link, text,
  terms, created_at, tsv)
SELECT 'thought', g::text, g, 'thought', g::text, 1 + g %% 20, '', '', NULL,
  g %% 2 = 0, ' reflection ', 't', '', t, t, %(t0)s + g * interval '1 second',
  to_tsvector('simple', t)
FROM (SELECT g, 'word' || (g %% 1000) || ' common text about mining'
        || CASE WHEN g %% 1000 = 7 THEN ' rareword creeperling' ELSE '' END AS t
      FROM generate_series(1, %(rows)s) AS g) AS s
"""


@pytest.fixture
def documents(db: None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(SEED, {"t0": T0, "rows": ROWS})
        cursor.execute(f"ANALYZE {TABLE}")


def _check(queryset: object, *, read: str, index: str) -> None:
    plan = queryset_plan(queryset)  # type: ignore[arg-type]
    shown = outline(plan)
    on_table = [n for n in nodes(plan) if n.get("Relation Name") == TABLE]
    assert on_table, f"{read}: never reads {TABLE}:\n{shown}"
    assert all(n["Node Type"] != "Seq Scan" for n in on_table), (
        f"{read}: a sequential scan of {TABLE}:\n{shown}"
    )
    used = {n.get("Index Name") for n in nodes(plan)}
    assert index in used, f"{read}: {index} is not used:\n{shown}"


@pytest.mark.parametrize(
    ("q", "index"),
    [
        ("rareword", "search_doc_tsv_idx"),
        ('"rareword creeperling"', "search_doc_tsv_idx"),
        ("creeperl*", "search_doc_tsv_idx"),
        ("rareword -mining", "search_doc_tsv_idx"),
        ("*eeperli", "search_doc_trgm_idx"),
    ],
)
def test_staff_search_walks_the_gin_index(
    documents: None, staff: object, q: str, index: str
) -> None:
    assert SearchDocument.objects.count() == ROWS
    docs = matching(filtered(documents_visible(user=staff), Filters()), parse(q))  # type: ignore[arg-type]
    _check(docs[:21], read=f"search {q!r}", index=index)


def test_a_keys_search_walks_the_gin_index(documents: None) -> None:
    docs = matching(documents_visible(user=None, agent_id=8), parse("rareword"))
    _check(docs[:21], read="a key's search", index="search_doc_tsv_idx")


def test_a_members_search_walks_the_gin_index(documents: None, owner: object) -> None:
    from tests.builders import agent_make

    planned = agent_make(owner=owner, name="planned")
    # A quarter of the documents are the member's agent's (its id comes from
    # a sequence no test resets, so the seeded ids are moved onto it): with
    # none, reading the agent's index first is the right plan.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE search_searchdocument SET agent_id = %s WHERE agent_id <= 5",
            [planned.agent.pk],
        )
        cursor.execute(f"ANALYZE {TABLE}")
    docs = matching(documents_visible(user=owner), parse("rareword"))  # type: ignore[arg-type]
    _check(docs[:21], read="a member's search", index="search_doc_tsv_idx")
