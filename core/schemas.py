"""Loading JSON Schemas shipped inside a package and validating against them.

Validation returns every problem, sorted by JSON path, as ``SchemaProblem``s.
Schemas are Draft 2020-12 and loaded once per (package, name).
"""

from __future__ import annotations

import ast
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
    return [SchemaProblem(path, str(error.validator), _message(error))]


# Longest rendering of an offending value inside a message.
MAX_VALUE_CHARS = 80


def _json(value: Any, *, cut: bool = False) -> str:
    """``value`` as JSON (never a Python repr); ``cut`` at ``MAX_VALUE_CHARS``."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = json.dumps(str(value), ensure_ascii=False)
    if cut and len(text) > MAX_VALUE_CHARS:
        text = text[: MAX_VALUE_CHARS - 3] + "..."
    return text


def _message(error: ValidationError) -> str:
    """The problem in words, with values written as JSON.

    jsonschema's own messages quote values as Python reprs (``None``,
    ``'x'``); a JSON document's errors should read as JSON (``null``,
    ``"x"``).
    """
    kind = error.validator
    expected = error.validator_value
    found = _json(error.instance, cut=True)
    if kind == "required":
        # One error per missing property; only its message names which one.
        head = error.message.removesuffix(" is a required property")
        try:
            name = ast.literal_eval(head)
        except (ValueError, SyntaxError):
            name = head
        return f"{_json(name)} is a required property"
    if kind == "type":
        return f"{found} is not of type {_json(expected)}"
    if kind == "enum":
        return f"{found} is not one of {_json(expected)}"
    if kind == "const":
        return f"{found} is not {_json(expected)}"
    if kind == "pattern":
        return f"{found} does not match {_json(expected)}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {
            "minimum": "less than the minimum of",
            "maximum": "greater than the maximum of",
            "exclusiveMinimum": "less than or equal to the minimum of",
            "exclusiveMaximum": "greater than or equal to the maximum of",
        }[kind]
        return f"{found} is {words} {_json(expected)}"
    if kind in ("minLength", "maxLength"):
        unit = "character" if expected == 1 else "characters"
        side = "at least" if kind == "minLength" else "at most"
        return f"{found} should have {side} {expected} {unit}"
    if kind in ("minItems", "maxItems"):
        unit = "item" if expected == 1 else "items"
        side = "at least" if kind == "minItems" else "at most"
        return f"{found} should have {side} {expected} {unit}"
    if kind == "uniqueItems":
        return f"{found} has non-unique elements"
    if kind == "additionalProperties":
        return f"{found} has unexpected properties"
    return f"{found} does not satisfy {kind} {_json(expected)}"


def validate(validator: Draft202012Validator, document: Any) -> list[SchemaProblem]:
    """Every structural problem of ``document``, sorted by path."""
    problems = [p for e in validator.iter_errors(document) for p in _problems(e)]
    return sorted(problems, key=lambda p: (p.path, p.code, p.message))


# JSON Schema keywords OpenAPI 3.0 has no place for: a conditional
# requirement (``if``/``then``) stays a rule the validator checks.
_NOT_IN_OPENAPI = frozenset(
    {"$schema", "$id", "$defs", "if", "then", "else", "title", "description"}
)


def as_openapi(schema: dict[str, Any], node: Any = None) -> Any:
    """``node`` of ``schema`` (the whole schema by default) written as an
    OpenAPI 3.0 schema: ``$defs`` references inlined, ``const`` as a
    one-value ``enum``, keywords OpenAPI lacks left out."""
    definitions = schema.get("$defs", {})

    def convert(item: Any) -> Any:
        if isinstance(item, list):
            return [convert(value) for value in item]
        if not isinstance(item, dict):
            return item
        reference = item.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            return convert(definitions[reference.removeprefix("#/$defs/")])
        out: dict[str, Any] = {}
        for key, value in item.items():
            if key in _NOT_IN_OPENAPI:
                continue
            if key == "const":
                out["enum"] = [value]
            elif key in ("properties", "patternProperties"):
                out[key] = {name: convert(child) for name, child in value.items()}
            else:
                out[key] = convert(value)
        return out

    return convert(schema if node is None else node)
