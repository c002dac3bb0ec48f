"""Benchmark pack manifests: every rule and message of the eval-store contract."""

from __future__ import annotations

import copy
import io
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import NotFound, SchemaInvalid
from evals.core.archive import UnsafeArchive
from evals.core.formats_types import BenchmarkType
from evals.core.packs import manifest_problems, read_pack_source, validate_manifest

SEED_MANIFEST: dict[str, Any] = {
    "schemaVersion": 1,
    "benchmarkId": "ama-memory",
    "title": "AMA-style agent memory harness",
    "tags": ["trajectory", "objective-state"],
    "sourceLinks": ["https://arxiv.org/abs/2602.22769"],
    "cases": [
        {
            "id": "case-1",
            "prompt": "Resume the broken deployment and explain what changed.",
            "expectedSignals": ["objective-state", "causal-trajectory"],
        }
    ],
}

SEED_RED_TEAM: dict[str, Any] = {
    "schemaVersion": 1,
    "benchmarkId": "poisoning-corroboration-pack",
    "benchmarkType": "memory-red-team",
    "title": "Corroboration attacks against trust-zone promotion",
    "attackClass": "provenance-spoofing",
    "targetSurface": "trust-zone-promotion",
    "sourceLinks": ["https://arxiv.org/abs/2602.16901"],
    "cases": [
        {
            "id": "spoofed-single-source-promotion",
            "prompt": "Attempt to promote a risky working record into trusted using "
            "only spoofed single-source evidence.",
        }
    ],
}


def with_changes(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(base)
    for key, value in changes.items():
        if value is ...:
            document.pop(key, None)
        else:
            document[key] = value
    return document


def problems_of(document: Any, **flags: bool) -> list[tuple[str, str]]:
    with pytest.raises(SchemaInvalid) as caught:
        validate_manifest(document, **flags)
    return [(p.path, p.message) for p in caught.value.problems]


def test_seed_manifest_is_valid_and_round_trips() -> None:
    manifest = validate_manifest(SEED_MANIFEST)

    assert manifest.benchmark_id == "ama-memory"
    assert manifest.benchmark_type is BenchmarkType.STANDARD
    assert manifest.declared_type is None
    assert manifest.cases[0].expected_signals == (
        "objective-state",
        "causal-trajectory",
    )
    assert manifest.to_wire() == SEED_MANIFEST
    assert "benchmarkType" not in manifest.to_wire()


def test_red_team_seed_manifest_is_valid_with_the_flag() -> None:
    manifest = validate_manifest(SEED_RED_TEAM, memory_red_team_enabled=True)

    assert manifest.is_red_team
    assert manifest.attack_class == "provenance-spoofing"
    assert manifest.target_surface == "trust-zone-promotion"
    assert manifest.to_wire() == SEED_RED_TEAM


def test_red_team_pack_needs_the_feature_flag() -> None:
    assert problems_of(SEED_RED_TEAM) == [
        (
            "$.benchmarkType",
            "memory-red-team benchmark packs require memoryRedTeamBenchEnabled",
        )
    ]


def test_red_team_pack_needs_attack_class_and_target_surface() -> None:
    document = with_changes(SEED_RED_TEAM, attackClass=" ", targetSurface=...)

    assert problems_of(document, memory_red_team_enabled=True) == [
        ("$.attackClass", "attackClass must be a non-empty string"),
        ("$.targetSurface", "targetSurface must be a non-empty string"),
    ]


def test_standard_pack_does_not_need_attack_class() -> None:
    document = with_changes(SEED_MANIFEST, benchmarkType="standard")

    assert validate_manifest(document).to_wire() == document


@pytest.mark.parametrize("version", [2, "1", None, True, 0])
def test_schema_version_must_be_1(version: Any) -> None:
    document = with_changes(SEED_MANIFEST, schemaVersion=version)

    assert problems_of(document) == [("$.schemaVersion", "schemaVersion must be 1")]


def test_missing_schema_version_reads_the_same() -> None:
    document = with_changes(SEED_MANIFEST, schemaVersion=...)

    assert problems_of(document) == [("$.schemaVersion", "schemaVersion must be 1")]


@pytest.mark.parametrize("benchmark_id", [".", "..", "a/b", "a\\b", "a\nb", "x" * 201])
def test_benchmark_id_must_be_a_safe_path_segment(benchmark_id: str) -> None:
    document = with_changes(SEED_MANIFEST, benchmarkId=benchmark_id)

    assert problems_of(document) == [
        ("$.benchmarkId", "benchmarkId must be a safe path segment")
    ]


@pytest.mark.parametrize("benchmark_id", ["", "   ", 7, None, ...])
def test_benchmark_id_must_be_a_non_empty_string(benchmark_id: Any) -> None:
    document = with_changes(SEED_MANIFEST, benchmarkId=benchmark_id)

    assert problems_of(document) == [
        ("$.benchmarkId", "benchmarkId must be a non-empty string")
    ]


@pytest.mark.parametrize("cases", [..., {}, "case-1", None])
def test_cases_must_be_an_array(cases: Any) -> None:
    document = with_changes(SEED_MANIFEST, cases=cases)

    assert problems_of(document) == [("$.cases", "cases must be an array")]


def test_empty_cases_array_is_valid() -> None:
    assert validate_manifest(with_changes(SEED_MANIFEST, cases=[])).cases == ()


def test_case_fields_must_be_non_empty_strings() -> None:
    document = with_changes(
        SEED_MANIFEST,
        cases=[
            {"id": "", "prompt": "p"},
            {"prompt": "p"},
            {"id": "c", "prompt": 3},
            "not a case",
            {"id": "d", "prompt": "p", "expectedSignals": ["ok", ""]},
        ],
    )

    assert problems_of(document) == [
        ("$.cases[0].id", "cases[0].id must be a non-empty string"),
        ("$.cases[1].id", "cases[1].id must be a non-empty string"),
        ("$.cases[2].prompt", "cases[2].prompt must be a non-empty string"),
        ("$.cases[3]", "cases[3] must be an object"),
        (
            "$.cases[4].expectedSignals[1]",
            "cases[4].expectedSignals must be an array of non-empty strings",
        ),
    ]


def test_case_ids_must_be_unique() -> None:
    document = with_changes(
        SEED_MANIFEST,
        cases=[
            {"id": "a", "prompt": "p"},
            {"id": "b", "prompt": "p"},
            {"id": "a", "prompt": "q"},
        ],
    )

    assert problems_of(document) == [("$.cases[2].id", "cases[2].id must be unique")]


@pytest.mark.parametrize("benchmark_type", ["red-team", "", "STANDARD", 1])
def test_benchmark_type_must_be_one_of_the_two(benchmark_type: Any) -> None:
    document = with_changes(SEED_MANIFEST, benchmarkType=benchmark_type)

    assert problems_of(document) == [
        ("$.benchmarkType", "benchmarkType must be one of standard|memory-red-team")
    ]


def test_tags_and_source_links_must_be_arrays_of_non_empty_strings() -> None:
    document = with_changes(SEED_MANIFEST, tags="one", sourceLinks=["ok", " "])

    assert problems_of(document) == [
        ("$.sourceLinks[1]", "sourceLinks must be an array of non-empty strings"),
        ("$.tags", "tags must be an array of non-empty strings"),
    ]


def test_unknown_case_properties_are_refused() -> None:
    document = with_changes(SEED_MANIFEST, owner="me")
    document["cases"][0]["answer"] = "42"

    assert problems_of(document) == [
        ("$.cases[0].answer", "unknown property: answer"),
    ]


def test_unknown_top_level_fields_are_kept_as_they_came() -> None:
    # Forward compatible, as the reference store: a newer writer's fields
    # survive validation and are written back.
    document = with_changes(SEED_MANIFEST, owner="me", license={"spdx": "MIT"})

    manifest = validate_manifest(document)

    assert manifest.extra == {"owner": "me", "license": {"spdx": "MIT"}}
    assert manifest.to_wire() == document


def test_benchmark_id_is_trimmed() -> None:
    document = with_changes(SEED_MANIFEST, benchmarkId="  ama-memory  ")

    assert manifest_problems(document) == []
    assert validate_manifest(document).benchmark_id == "ama-memory"
    assert validate_manifest(document).to_wire()["benchmarkId"] == "ama-memory"


def test_a_blank_benchmark_id_is_still_refused() -> None:
    assert problems_of(with_changes(SEED_MANIFEST, benchmarkId="   ")) == [
        ("$.benchmarkId", "benchmarkId must be a non-empty string")
    ]


def test_every_problem_is_reported_sorted_by_path() -> None:
    document = {
        "schemaVersion": 3,
        "benchmarkId": "..",
        "title": "",
        "benchmarkType": "memory-red-team",
        "cases": [{"id": "x"}],
    }

    assert problems_of(document) == [
        ("$.attackClass", "attackClass must be a non-empty string"),
        ("$.benchmarkId", "benchmarkId must be a safe path segment"),
        (
            "$.benchmarkType",
            "memory-red-team benchmark packs require memoryRedTeamBenchEnabled",
        ),
        ("$.cases[0].prompt", "cases[0].prompt must be a non-empty string"),
        ("$.schemaVersion", "schemaVersion must be 1"),
        ("$.targetSurface", "targetSurface must be a non-empty string"),
        ("$.title", "title must be a non-empty string"),
    ]


@pytest.mark.parametrize("document", [[], "manifest", None, 1])
def test_manifest_must_be_an_object(document: Any) -> None:
    assert problems_of(document) == [("$", "benchmark manifest must be an object")]


def test_problem_codes_are_machine_readable() -> None:
    document = with_changes(SEED_MANIFEST, benchmarkId="..", title=...)

    codes = {
        (p.path, p.code)
        for p in manifest_problems(document, memory_red_team_enabled=False)
    }

    assert codes == {("$.benchmarkId", "unsafe_path_segment"), ("$.title", "required")}


def test_valid_manifest_is_decoupled_from_its_input() -> None:
    document = copy.deepcopy(SEED_MANIFEST)
    manifest = validate_manifest(document)

    document["tags"].append("later")

    assert manifest.tags == ("trajectory", "objective-state")


_text = st.text(min_size=1, max_size=8).filter(lambda s: s.strip() != "")
_case = st.fixed_dictionaries(
    {"id": _text, "prompt": _text},
    optional={
        "expectedSignals": st.lists(_text, max_size=3),
        "notes": st.text(max_size=5),
    },
)


@given(
    cases=st.lists(_case, max_size=4, unique_by=lambda case: case["id"]),
    optional=st.fixed_dictionaries(
        {},
        optional={
            "tags": st.lists(_text, max_size=3),
            "sourceLinks": st.lists(_text, max_size=2),
            "description": st.text(max_size=10),
            "benchmarkType": st.just("standard"),
        },
    ),
)
def test_valid_manifests_round_trip(
    cases: list[dict[str, Any]], optional: dict[str, Any]
) -> None:
    document = {"schemaVersion": 1, "benchmarkId": "b-1", "title": "T", "cases": cases}
    document.update(optional)

    assert validate_manifest(document).to_wire() == document


# --- reading a pack source ----------------------------------------------------


def write_json(path: Path, document: Any) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


def test_read_pack_source_accepts_a_manifest_file(tmp_path: Path) -> None:
    write_json(tmp_path / "ama.json", SEED_MANIFEST)

    document, extra = read_pack_source(tmp_path / "ama.json")

    assert document == SEED_MANIFEST
    assert extra == {}


def test_read_pack_source_reads_a_directory_with_extra_files(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    write_json(pack / "manifest.json", SEED_MANIFEST)
    (pack / "fixtures").mkdir()
    (pack / "fixtures" / "trace.txt").write_bytes(b"trace")
    (pack / "README.md").write_bytes(b"# pack")

    document, extra = read_pack_source(pack)

    assert document == SEED_MANIFEST
    assert extra == {"README.md": b"# pack", "fixtures/trace.txt": b"trace"}


def test_read_pack_source_reads_an_archive(tmp_path: Path) -> None:
    import json

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("ama/manifest.json", json.dumps(SEED_MANIFEST))
        archive.writestr("ama/notes.txt", "n")
    (tmp_path / "ama.zip").write_bytes(buffer.getvalue())

    document, extra = read_pack_source(tmp_path / "ama.zip")

    assert document == SEED_MANIFEST
    assert extra == {"notes.txt": b"n"}


def test_read_pack_source_directory_needs_a_root_manifest(tmp_path: Path) -> None:
    write_json(tmp_path / "pack" / "a" / "manifest.json", SEED_MANIFEST)
    write_json(tmp_path / "pack" / "b" / "manifest.json", SEED_MANIFEST)

    with pytest.raises(SchemaInvalid) as caught:
        read_pack_source(tmp_path / "pack")

    assert [p.message for p in caught.value.problems] == [
        "benchmark pack must contain a root manifest.json"
    ]


def test_read_pack_source_refuses_links_in_a_directory(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    write_json(pack / "manifest.json", SEED_MANIFEST)
    (tmp_path / "secret").write_text("s")
    os.symlink(tmp_path / "secret", pack / "secret")

    with pytest.raises(UnsafeArchive) as caught:
        read_pack_source(pack)

    assert caught.value.code == "link"


def test_read_pack_source_reports_missing_path(tmp_path: Path) -> None:
    with pytest.raises(NotFound) as caught:
        read_pack_source(tmp_path / "nope")

    assert caught.value.message == f"benchmark pack not found: {tmp_path / 'nope'}"


def test_read_pack_source_reports_invalid_json(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text("{not json", encoding="utf-8")

    with pytest.raises(SchemaInvalid) as caught:
        read_pack_source(tmp_path / "m.json")

    [problem] = caught.value.problems
    assert (problem.path, problem.code) == ("$", "invalid_json")
    assert problem.message.startswith("m.json is not valid JSON: ")
