"""evals.services.columns: values a valid document holds but a column cannot
are refused with their JSON paths, before anything is written."""

from __future__ import annotations

import pytest

from core.errors import SchemaInvalid, SchemaProblem
from evals.models import Benchmark
from evals.services.columns import (
    identifier_problems,
    require_storable,
    storage_problems,
)

LONG_ID = "a" * 201  # Benchmark.benchmark_id holds 200


def test_a_value_longer_than_its_column_is_too_long_at_its_path() -> None:
    problems = storage_problems(
        {"benchmarkId": LONG_ID},
        Benchmark,
        [("benchmark_id", "$.benchmarkId", LONG_ID), ("title", "$.title", "fine")],
    )
    assert problems == [
        SchemaProblem(
            "$.benchmarkId", "too_long", "benchmarkId must be at most 200 characters"
        )
    ]


def test_text_no_column_can_store_is_found_anywhere_in_the_document() -> None:
    problems = storage_problems(
        {"title": "ok", "cases": [{"prompt": "x\x00y"}]}, Benchmark, []
    )
    assert [(p.path, p.code) for p in problems] == [("$.cases[0].prompt", "unstorable")]
    assert "NUL" in problems[0].message


def test_an_identifier_with_an_invisible_character_is_unsafe_text() -> None:
    problems = identifier_problems([("$.cases[0].id", "a\u200bb"), ("$.tags[1]", "ok")])
    assert [(p.path, p.code) for p in problems] == [("$.cases[0].id", "unsafe_text")]
    assert problems[0].message.startswith("id ")


def test_require_storable_names_every_problem_and_passes_a_storable_document() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        require_storable(
            {"title": "x\x00"},
            Benchmark,
            [("benchmark_id", "$.benchmarkId", LONG_ID)],
            what="benchmark pack",
            identifiers=[("$.cases[0].id", "a\u200bb")],
        )
    assert caught.value.message == "benchmark pack cannot be stored"
    assert {p.code for p in caught.value.problems} == {
        "unstorable",
        "too_long",
        "unsafe_text",
    }
    require_storable(
        {"title": "t"},
        Benchmark,
        [("benchmark_id", "$.benchmarkId", "ama")],
        what="benchmark pack",
        identifiers=[("$.cases[0].id", "case-0")],
    )
