"""PostgreSQL keeps ten times the default statistics of the tsvector column.

With the default, a word outside the few hundred most common ones is
estimated at half the rarest listed one's frequency: a rare word looks
common, and the planner walks the newest-first index hoping to meet 20
matches soon, reading most of the table when the word is rare (or when
the caller may see none of its matches). With 1000, the list covers
thousands of words and rare ones are estimated as rare, so their search
reads the GIN index. No-op on SQLite.
"""

from django.db import migrations


def _statistics(target):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(
                "ALTER TABLE search_searchdocument "
                f"ALTER COLUMN tsv SET STATISTICS {int(target)}"
            )

    return run


class Migration(migrations.Migration):
    dependencies = [("search", "0002_fulltext")]

    operations = [migrations.RunPython(_statistics(1000), _statistics(-1))]
