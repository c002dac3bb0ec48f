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
from core.text import json_path, unstorable_values


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


def require_storable(
    document: Any,
    model: type[models.Model],
    columns: Iterable[tuple[str, str, Any]],
    *,
    what: str,
) -> None:
    """``SchemaInvalid`` with every problem of ``storage_problems``, if any."""
    problems = storage_problems(document, model, columns)
    if problems:
        raise SchemaInvalid(f"{what} cannot be stored", problems=problems)
