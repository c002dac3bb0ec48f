"""The traces migrations are safe on a big database: they create tables and
indexes and insert price rows, never rewrite or lock an existing table; the
shipped price table is loaded and made active; on PostgreSQL the spans get a
BRIN index on their start time, built concurrently."""

from __future__ import annotations

import io
import json
import re
from importlib import import_module
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations import RunPython
from django.test.utils import CaptureQueriesContext

from traces.models import PriceTable

SHIPPED = Path(__file__).resolve().parents[2] / "traces" / "prices" / "prices.json"
TRACES_TABLES = {
    "traces_pricetable",
    "traces_pricerule",
    "traces_span",
    "traces_scoreexport",
}
# Statement heads a safe migration may hold: new tables and their indexes;
# ALTER only of a table the same migration creates (its foreign keys).
SAFE = re.compile(
    r'^(BEGIN;|COMMIT;|CREATE TABLE|CREATE (UNIQUE )?INDEX|ALTER TABLE "traces_\w+"|--|$)'
)

shipped_prices = import_module("traces.migrations.0002_shipped_prices")
span_time_brin = import_module("traces.migrations.0003_span_time_brin")


def sqlmigrate(name: str, django_db_blocker) -> list[str]:
    # Outside the test's transaction: SQLite's schema editor refuses to
    # start inside one, even only to collect SQL.
    out = io.StringIO()
    with django_db_blocker.unblock():
        call_command("sqlmigrate", "traces", name, stdout=out)
    return [line.strip() for line in out.getvalue().splitlines()]


def test_0001_only_creates_tables_and_indexes(django_db_setup, django_db_blocker):
    lines = sqlmigrate("0001", django_db_blocker)
    unsafe = [line for line in lines if not SAFE.match(line)]
    # Column and constraint lines inside a CREATE TABLE (...) are allowed.
    unsafe = [line for line in unsafe if not line.startswith(('"', "CONSTRAINT", ")"))]
    assert unsafe == []
    created = set(re.findall(r'CREATE TABLE "(\w+)"', "\n".join(lines)))
    altered = set(re.findall(r'ALTER TABLE "(\w+)"', "\n".join(lines)))
    assert created == TRACES_TABLES
    assert altered <= created
    assert not re.search(r"\b(UPDATE|DELETE|DROP)\b", "\n".join(lines))


@pytest.mark.parametrize("name", ["0002", "0003"])
def test_the_later_migrations_hold_no_schema_change_of_their_own(
    name, django_db_setup, django_db_blocker
) -> None:
    lines = sqlmigrate(name, django_db_blocker)
    statements = [line for line in lines if line not in ("", "BEGIN;", "COMMIT;")]
    assert statements and all(line.startswith("--") for line in statements)


def test_0002_is_reversible_and_0003_builds_outside_a_transaction() -> None:
    (load,) = shipped_prices.Migration.operations
    (brin,) = span_time_brin.Migration.operations
    assert isinstance(load, RunPython) and load.reversible
    assert isinstance(brin, RunPython) and brin.reversible
    assert span_time_brin.Migration.atomic is False


@pytest.mark.django_db
def test_the_shipped_table_is_loaded_active_by_inserts_only() -> None:
    PriceTable.objects.all().delete()
    with CaptureQueriesContext(connection) as queries:
        shipped_prices.load_shipped(apps, None)
    writes = [
        q["sql"] for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")
    ]
    assert writes and all(
        re.match(r'INSERT INTO "traces_price(table|rule)"', sql) for sql in writes
    )
    document = json.loads(SHIPPED.read_text())
    table = PriceTable.objects.get()
    assert (table.version, table.source, table.active) == (
        document["version"],
        "shipped",
        True,
    )
    assert table.rules.count() == len(document["rules"])
    assert list(table.rules.order_by("position").values_list("pattern", flat=True)) == [
        rule["pattern"] for rule in document["rules"]
    ]


@pytest.mark.django_db
def test_loading_twice_adds_nothing_and_an_active_table_stays_active() -> None:
    PriceTable.objects.all().delete()
    mine = PriceTable.objects.create(version="mine", active=True)
    shipped_prices.load_shipped(apps, None)
    shipped_prices.load_shipped(apps, None)
    assert sorted(PriceTable.objects.values_list("version", "active")) == sorted(
        [("mine", True), (json.loads(SHIPPED.read_text())["version"], False)]
    )
    shipped_prices.unload_shipped(apps, None)
    assert list(PriceTable.objects.all()) == [mine]


@pytest.mark.django_db
def test_the_brin_step_does_nothing_on_sqlite() -> None:
    if connection.vendor == "postgresql":
        pytest.skip("SQLite only")

    class Editor:
        connection = connection

        def execute(self, sql):  # pragma: no cover - must not run
            raise AssertionError(sql)

    span_time_brin.create_brin(apps, Editor())
    span_time_brin.drop_brin(apps, Editor())


@pytest.mark.postgres
@pytest.mark.django_db
def test_postgres_has_a_brin_index_on_the_span_start() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'traces_span' "
            "AND indexname = 'span_started_brin'"
        )
        (definition,) = cursor.fetchone()
    assert "USING brin (started_at)" in definition
