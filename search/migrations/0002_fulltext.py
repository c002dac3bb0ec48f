"""The full-text index, made for the database in use.

PostgreSQL: a ``tsv`` tsvector column (the indexer fills it: the terms at
their positions, plus the text's words in the configured language) with a
GIN index, and a trigram GIN index over ``terms`` for ``*part`` queries.
SQLite: an FTS5 table over ``terms`` with the document's id as its rowid,
kept in step by triggers. Neither is part of the model's state.
"""

from django.db import migrations

PG_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "ALTER TABLE search_searchdocument ADD COLUMN tsv tsvector",
    # fastupdate off: the indexer writes in batches off the request path, and
    # a pending list of unmerged entries would make every search read it
    # (and the planner price the index out) until a vacuum merged it.
    "CREATE INDEX search_doc_tsv_idx ON search_searchdocument USING gin (tsv) "
    "WITH (fastupdate = off)",
    "CREATE INDEX search_doc_trgm_idx ON search_searchdocument "
    "USING gin (terms gin_trgm_ops) WITH (fastupdate = off)",
]
PG_BACKWARD = [
    "DROP INDEX IF EXISTS search_doc_trgm_idx",
    "DROP INDEX IF EXISTS search_doc_tsv_idx",
    "ALTER TABLE search_searchdocument DROP COLUMN IF EXISTS tsv",
]
SQLITE_FORWARD = [
    # The terms are already folded (search.core.text): the tokenizer only
    # splits them at the spaces, keeping letters, digits and marks.
    "CREATE VIRTUAL TABLE search_fts USING fts5(terms, "
    "content='search_searchdocument', content_rowid='id', "
    "tokenize=\"unicode61 remove_diacritics 0 categories 'L* N* M* Co'\")",
    "CREATE TRIGGER search_fts_ai AFTER INSERT ON search_searchdocument BEGIN "
    "INSERT INTO search_fts(rowid, terms) VALUES (new.id, new.terms); END",
    "CREATE TRIGGER search_fts_ad AFTER DELETE ON search_searchdocument BEGIN "
    "INSERT INTO search_fts(search_fts, rowid, terms) "
    "VALUES ('delete', old.id, old.terms); END",
    "CREATE TRIGGER search_fts_au AFTER UPDATE OF terms ON search_searchdocument "
    "BEGIN INSERT INTO search_fts(search_fts, rowid, terms) "
    "VALUES ('delete', old.id, old.terms); "
    "INSERT INTO search_fts(rowid, terms) VALUES (new.id, new.terms); END",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS search_fts_au",
    "DROP TRIGGER IF EXISTS search_fts_ad",
    "DROP TRIGGER IF EXISTS search_fts_ai",
    "DROP TABLE IF EXISTS search_fts",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("search", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": PG_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": PG_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        ),
    ]
