"""evals.core.wire: instants, stored pack files and nested problems as the
benchmark formats share them (no database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.errors import SchemaInvalid, SchemaProblem
from evals.core.wire import (
    decode_files,
    encode_files,
    instant,
    problems_at,
    wire_timestamp,
)


def test_wire_timestamp_is_utc_with_milliseconds_and_a_z() -> None:
    moment = datetime(
        2026, 3, 6, 11, 0, 0, 123_456, tzinfo=timezone(timedelta(hours=1))
    )
    assert wire_timestamp(moment) == "2026-03-06T10:00:00.123Z"


def test_instant_reads_what_wire_timestamp_writes() -> None:
    moment = datetime(2026, 3, 6, 10, 0, 0, 123_000, tzinfo=UTC)
    assert instant(wire_timestamp(moment)) == moment


def test_instant_refuses_text_that_is_not_a_timestamp() -> None:
    with pytest.raises(ValueError, match="not a valid ISO timestamp: 'yesterday'"):
        instant("yesterday")


def test_pack_files_round_trip_through_their_stored_base64_sorted_by_path() -> None:
    files = {"data/b.bin": b"\x00\xff", "a.txt": b"hi"}
    stored = encode_files(files)
    assert list(stored.items()) == [("a.txt", "aGk="), ("data/b.bin", "AP8=")]
    assert decode_files(stored) == files


def test_a_stored_file_that_is_not_base64_is_a_problem_at_its_path() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        decode_files({"x.bin": "not base64!"})
    assert list(caught.value.problems) == [
        SchemaProblem("$.files.x.bin", "invalid", "stored pack file is not base64")
    ]


def test_problems_of_a_nested_document_are_rerooted_under_its_place() -> None:
    nested = [
        SchemaProblem("$.runId", "required", "missing"),
        SchemaProblem("$", "type", "not an object"),
    ]
    assert problems_at("$.records[2]", nested) == [
        SchemaProblem("$.records[2].runId", "required", "missing"),
        SchemaProblem("$.records[2]", "type", "not an object"),
    ]
