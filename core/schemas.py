"""Loading JSON Schemas shipped inside a package and validating against them.

Validation returns every problem, sorted by JSON path, as ``SchemaProblem``s.
Schemas are Draft 2020-12 and loaded once per (package, name).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from core.errors import SchemaProblem


@cache
def load_validator(package: str, name: str) -> Draft202012Validator:
    """The validator for ``<package>/schemas/<name>``, checked once."""
    text = resources.files(package).joinpath("schemas", name).read_text("utf-8")
    schema = json.loads(text)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def json_path(parts: Any) -> str:
    """Render a jsonschema path deque as ``$.a[0].b``."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _problems(error: ValidationError) -> list[SchemaProblem]:
    path = json_path(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        if extra:
            return [
                SchemaProblem(
                    f"{path}.{key}", "unknown_property", f"unknown property: {key}"
                )
                for key in extra
            ]
    return [SchemaProblem(path, str(error.validator), error.message)]


def validate(validator: Draft202012Validator, document: Any) -> list[SchemaProblem]:
    """Every structural problem of ``document``, sorted by path."""
    problems = [p for e in validator.iter_errors(document) for p in _problems(e)]
    return sorted(problems, key=lambda p: (p.path, p.code, p.message))
