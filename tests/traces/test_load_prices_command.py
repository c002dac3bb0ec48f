"""``manage.py load_prices``: a new active version, bad files refused whole."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from traces.core.records import SOURCE_OTLP, SpanRecord, TokenUsage
from traces.models import PriceTable, Span
from traces.services.spans import store_spans

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "traces" / "prices" / "prices.json"
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def write(tmp_path: Path, document) -> Path:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(document))
    return path


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("load_prices", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def failing(*args) -> tuple[CommandError, str]:
    err = io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("load_prices", *args, stdout=io.StringIO(), stderr=err)
    return caught.value, err.getvalue()


def versions() -> list[tuple[str, bool]]:
    return sorted(PriceTable.objects.values_list("version", "active"))


def test_a_file_is_loaded_as_a_new_active_version(tmp_path) -> None:
    shipped = PriceTable.objects.get(active=True).version
    path = write(
        tmp_path,
        {"version": "mine-1", "rules": [{"pattern": "m*", "input": 1, "output": 2}]},
    )
    out, _ = run(str(path))
    assert out == "price table mine-1 (1 rules): loaded\n"
    assert versions() == sorted([("mine-1", True), (shipped, False)])
    assert PriceTable.objects.get(version="mine-1").source == "file"


def test_loading_the_shipped_file_again_keeps_it_active() -> None:
    shipped = json.loads(SHIPPED.read_text())
    out, _ = run(str(SHIPPED))
    assert out == (
        f"price table {shipped['version']} ({len(shipped['rules'])} rules): "
        "already the active table\n"
    )
    assert versions() == [(shipped["version"], True)]


def test_a_bad_file_prints_its_path_and_every_problem_and_stores_nothing(
    tmp_path,
) -> None:
    before = versions()
    path = write(
        tmp_path,
        {
            "version": "bad",
            "rules": [
                {"pattern": "a", "input": "1", "output": "1"},
                {"pattern": "b", "input": "-2", "output": "x"},
            ],
        },
    )
    error, err = failing(str(path))
    assert (str(error), error.returncode) == (
        f"{path} is not a valid price file",
        1,
    )
    assert err.splitlines() == [
        f"invalid price file: {path} (2 problem(s))",
        "  rules[1].input: '-2' is negative",
        "  rules[1].output: 'x' is not a number",
    ]
    assert versions() == before


def test_a_missing_file_exits_2(tmp_path) -> None:
    error, _ = failing(str(tmp_path / "nope.json"))
    assert (str(error), error.returncode) == (
        f"no price file at {tmp_path / 'nope.json'}",
        2,
    )


def test_a_taken_version_with_other_rules_exits_1_and_changes_nothing(
    tmp_path,
) -> None:
    version = PriceTable.objects.get(active=True).version
    path = write(
        tmp_path,
        {"version": version, "rules": [{"pattern": "m", "input": 1, "output": 1}]},
    )
    error, _ = failing(str(path))
    assert error.returncode == 1
    assert "already stored with other rules" in str(error)
    assert versions() == [(version, True)]


def test_reprice_unknown_prices_the_spans_the_new_table_knows(tmp_path) -> None:
    store_spans(
        [
            SpanRecord(
                trace_id="ef" * 16,
                span_id="01" * 8,
                name="chat",
                started_at=T0,
                ended_at=T0,
                source=SOURCE_OTLP,
                request_model="house-model",
                usage=TokenUsage(input=500_000, output=250_000),
            )
        ]
    )
    assert Span.objects.get().cost_source == "unknown"
    path = write(
        tmp_path,
        {
            "version": "house-1",
            "rules": [{"pattern": "house-*", "input": "2", "output": "4"}],
        },
    )
    out, _ = run(str(path), "--reprice-unknown")
    assert out.splitlines()[-1] == "repriced 1 span(s) that had no price"
    span = Span.objects.get()
    assert (span.cost_usd, span.cost_source, span.price_version) == (
        Decimal(2),
        "computed",
        "house-1",
    )
