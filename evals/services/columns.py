"""Values that a valid document holds but a database column cannot.

The seed formats put no bound on most strings; the columns that index them
do (``varchar``). A document whose value is longer than its column, or that
holds text no column can store (NUL, lone surrogates: possible in files read
by the CLI and in uploaded files), is refused as invalid with the field's
JSON path, before anything is written, on every database backend alike
(SQLite would store it, PostgreSQL would refuse it with a server error).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models

from core.errors import SchemaInvalid, SchemaProblem
from core.text import json_path, unsafe_identifiers, unstorable_values
from evals.core.store import InvalidItem, StoreContents
from evals.models import BaselineSnapshot, Benchmark, CaseResult, Run


def storage_problems(
    document: Any,
    model: type[models.Model],
    columns: Iterable[tuple[str, str, Any]],
) -> list[SchemaProblem]:
    """Problems of ``document`` (anywhere in it) and of each ``(model field,
    JSON path, value)`` that must fit its column."""
    problems = [
        SchemaProblem(json_path(parts), "unstorable", reason)
        for parts, reason in unstorable_values(document)
    ]
    for field_name, path, value in columns:
        max_length = getattr(model._meta.get_field(field_name), "max_length", None)
        if isinstance(value, str) and max_length and len(value) > max_length:
            name = path.rsplit(".", 1)[-1]
            problems.append(
                SchemaProblem(
                    path, "too_long", f"{name} must be at most {max_length} characters"
                )
            )
    return problems


def identifier_problems(ids: Iterable[tuple[str, str]]) -> list[SchemaProblem]:
    """Problems of each ``(JSON path, id or tag)`` holding a control,
    zero-width, bidi or noncharacter (``core.text.unsafe_identifiers``)."""
    return [
        SchemaProblem(path, "unsafe_text", f"{path.rsplit('.', 1)[-1]} {reason}")
        for path, reason in unsafe_identifiers(ids)
    ]


def require_storable(
    document: Any,
    model: type[models.Model],
    columns: Iterable[tuple[str, str, Any]],
    *,
    what: str,
    identifiers: Iterable[tuple[str, str]] = (),
) -> None:
    """``SchemaInvalid`` with every problem of ``storage_problems`` and of
    ``identifier_problems(identifiers)``, if any."""
    problems = storage_problems(document, model, columns)
    problems += identifier_problems(identifiers)
    if problems:
        raise SchemaInvalid(f"{what} cannot be stored", problems=problems)


def unstorable_items(contents: StoreContents) -> list[InvalidItem]:
    """Valid documents with a value longer than its column: not imported
    (PostgreSQL would refuse the whole import half-way)."""
    found: list[InvalidItem] = []
    checks: list[tuple[str, list[SchemaProblem]]] = []
    for manifest in contents.manifests:
        m = manifest.item
        checks.append(
            (
                manifest.path,
                storage_problems(
                    None,
                    Benchmark,
                    [
                        ("title", "$.title", m.title),
                        ("attack_class", "$.attackClass", m.attack_class),
                        ("target_surface", "$.targetSurface", m.target_surface),
                    ],
                ),
            )
        )
    for run in contents.runs:
        summary = run.item
        problems = storage_problems(
            None, Run, [("git_ref", "$.gitRef", summary.git_ref)]
        )
        problems += storage_problems(
            None,
            CaseResult,
            [
                ("case_id", f"$.caseResults[{index}].caseId", result.case_id)
                for index, result in enumerate(summary.case_results or ())
            ],
        )
        checks.append((run.path, problems))
    for baseline in contents.baselines:
        checks.append(
            (
                baseline.path,
                storage_problems(
                    None,
                    BaselineSnapshot,
                    [
                        (
                            "source_root_dir",
                            "$.sourceRootDir",
                            baseline.item.source_root_dir,
                        )
                    ],
                ),
            )
        )
    for path, problems in checks:
        if problems:
            ordered = sorted(problems, key=lambda p: (p.path, p.code, p.message))
            found.append(InvalidItem(path, tuple(ordered)))
    return found
