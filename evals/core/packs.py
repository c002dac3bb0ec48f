"""Benchmark pack manifests (the eval-store contract): validation and reading a pack
source.

Decides whether a manifest is a valid benchmark pack and reports every
problem with its JSON path and the contract's message:

- ``schemaVersion must be 1``;
- ``benchmarkId must be a non-empty string`` / ``... must be a safe path
  segment`` (not ``.``/``..``, no ``/`` or ``\\``);
- ``title must be a non-empty string``;
- ``cases must be an array``, ``cases[i] must be an object``,
  ``cases[i].id must be a non-empty string`` (and unique),
  ``cases[i].prompt must be a non-empty string``;
- ``benchmarkType must be one of standard|memory-red-team`` (standard when
  absent); memory-red-team packs need ``attackClass`` and ``targetSurface``
  (``attackClass must be a non-empty string``) and the memoryRedTeamBench
  feature flag.

Structure is checked by ``schemas/manifest.v1.schema.json``; the semantic
rules above that JSON Schema cannot express are checked here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import NotFound, SchemaProblem
from core.schemas import load_validator, validate
from evals.core.archive import (
    MANIFEST_NAME,
    ArchiveLimits,
    ArchiveRefusal,
    UnsafeArchive,
    extract_pack_archive,
    pack_from_files,
)
from evals.core.format_rules import (
    MessageTable,
    is_safe_path_segment,
    number_problems,
    parse_json_document,
    raise_if_problems,
    translate_problems,
)
from evals.core.formats_types import BenchmarkCase, BenchmarkType, Manifest

SCHEMA_NAME = "manifest.v1.schema.json"
RED_TEAM_FLAG_MESSAGE = (
    "memory-red-team benchmark packs require memoryRedTeamBenchEnabled"
)

_NON_EMPTY = "{field} must be a non-empty string"
_STRINGS = "{field} must be an array of non-empty strings"
_ITEM = "{parent} must be an array of non-empty strings"
MESSAGES: MessageTable = {
    "$": "benchmark manifest must be an object",
    "$.schemaVersion": "schemaVersion must be 1",
    "$.benchmarkId": _NON_EMPTY,
    "$.benchmarkType": "benchmarkType must be one of standard|memory-red-team",
    "$.title": _NON_EMPTY,
    "$.description": "{field} must be a string",
    "$.tags": _STRINGS,
    "$.tags[]": _ITEM,
    "$.sourceLinks": _STRINGS,
    "$.sourceLinks[]": _ITEM,
    "$.attackClass": _NON_EMPTY,
    "$.targetSurface": _NON_EMPTY,
    "$.cases": "cases must be an array",
    "$.cases[]": "{field} must be an object",
    "$.cases[].id": _NON_EMPTY,
    "$.cases[].prompt": _NON_EMPTY,
    "$.cases[].expectedSignals": _STRINGS,
    "$.cases[].expectedSignals[]": _ITEM,
    "$.cases[].notes": "{field} must be a string",
}


def manifest_problems(
    document: Any, *, memory_red_team_enabled: bool = False
) -> list[SchemaProblem]:
    """Every problem of a manifest document, sorted by path (empty: valid)."""
    raw = validate(load_validator("evals.core", SCHEMA_NAME), document)
    raw.extend(number_problems(document))
    problems = translate_problems(
        raw, messages=MESSAGES, document_name="benchmark manifest"
    )
    if not isinstance(document, dict):
        return problems
    bad_paths = {problem.path for problem in problems}
    benchmark_id = document.get("benchmarkId")
    if (
        "$.benchmarkId" not in bad_paths
        and isinstance(benchmark_id, str)
        and not is_safe_path_segment(benchmark_id.strip())
    ):
        problems.append(
            SchemaProblem(
                "$.benchmarkId",
                "unsafe_path_segment",
                "benchmarkId must be a safe path segment",
            )
        )
    if (
        document.get("benchmarkType") == BenchmarkType.MEMORY_RED_TEAM
        and not memory_red_team_enabled
    ):
        problems.append(
            SchemaProblem("$.benchmarkType", "feature_disabled", RED_TEAM_FLAG_MESSAGE)
        )
    cases = document.get("cases")
    if isinstance(cases, list):
        seen: set[str] = set()
        for index, case in enumerate(cases):
            case_id = case.get("id") if isinstance(case, dict) else None
            path = f"$.cases[{index}].id"
            if not isinstance(case_id, str) or path in bad_paths:
                continue
            if case_id in seen:
                problems.append(
                    SchemaProblem(
                        path, "duplicate", f"cases[{index}].id must be unique"
                    )
                )
            seen.add(case_id)
    return sorted(problems, key=lambda p: (p.path, p.code, p.message))


def validate_manifest(
    document: Any, *, memory_red_team_enabled: bool = False
) -> Manifest:
    """Parse a benchmark manifest, raising ``SchemaInvalid`` with every problem.

    ``memory_red_team_enabled`` is the memoryRedTeamBench feature flag (off by
    default, as in the seed). ``validate_manifest(x).to_wire() == x`` for
    every valid ``x`` whose ``benchmarkId`` has no edge whitespace: the id is
    trimmed, as the reference store trims it. Unknown top-level properties are
    kept (``Manifest.extra``) and written back by ``to_wire``.
    """
    raise_if_problems(
        manifest_problems(document, memory_red_team_enabled=memory_red_team_enabled),
        "benchmark manifest",
    )
    declared = document.get("benchmarkType")
    return Manifest(
        benchmark_id=document["benchmarkId"].strip(),
        title=document["title"],
        cases=tuple(
            BenchmarkCase(
                id=case["id"],
                prompt=case["prompt"],
                expected_signals=_strings(case.get("expectedSignals")),
                notes=case.get("notes"),
            )
            for case in document["cases"]
        ),
        declared_type=None if declared is None else BenchmarkType(declared),
        description=document.get("description"),
        tags=_strings(document.get("tags")),
        source_links=_strings(document.get("sourceLinks")),
        attack_class=document.get("attackClass"),
        target_surface=document.get("targetSurface"),
        extra={k: v for k, v in document.items() if k not in KNOWN_FIELDS} or None,
    )


KNOWN_FIELDS = frozenset(load_validator("evals.core", SCHEMA_NAME).schema["properties"])


def _strings(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


_ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")


def read_pack_files(directory: Path) -> dict[str, bytes]:
    """Every regular file under a pack directory, by relative POSIX path.

    Links are refused (``UnsafeArchive`` with code ``link``) so that a pack
    directory cannot smuggle files from elsewhere into the store.
    """
    files: dict[str, bytes] = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory).as_posix()
        if path.is_symlink():
            raise UnsafeArchive(
                ArchiveRefusal.LINK,
                f"{directory}: {relative!r} is a link",
                member=relative,
            )
        if path.is_file():
            files[relative] = path.read_bytes()
    return files


def read_pack_source(
    source: Path, *, limits: ArchiveLimits | None = None
) -> tuple[Any, dict[str, bytes]]:
    """The manifest document and extra files of a pack given by path.

    ``source`` is a manifest JSON file, a pack directory with a root
    ``manifest.json``, or a ``.zip``/``.tar.gz`` archive of one. The manifest
    is parsed, not validated. Raises ``NotFound`` when ``source`` does not
    exist, ``SchemaInvalid`` for a missing or non-JSON manifest and
    ``UnsafeArchive`` for a refused archive.
    """
    if source.is_dir():
        return pack_from_files(read_pack_files(source))
    if not source.is_file():
        raise NotFound(f"benchmark pack not found: {source}")
    data = source.read_bytes()
    if source.name.lower().endswith(_ARCHIVE_SUFFIXES):
        files = extract_pack_archive(data, filename=source.name, limits=limits)
        return pack_from_files(files)
    return parse_json_document(data, what=source.name or MANIFEST_NAME), {}
