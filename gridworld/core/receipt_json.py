"""Reading a run receipt strictly: the JSON that verification accepts.

A receipt is canonical JSON written by ``run_episode`` (see docs/gridworld.md,
"Receipt bytes"): UTF-8, every key once per object, integers only. What
verification must not take at face value is refused here, with the JSON path
and the reason, before anything is replayed:

- a key that appears twice in one object (``json.loads`` would keep the last
  one silently, so the value verified is not the one a reader sees first);
- ``NaN``/``Infinity`` and numbers too large for a float (``1e309`` parses as
  infinity), integers outside 64 bits, and strings no database column can
  store (NUL, lone surrogates), the same refusals as the API's body parser.

``read_receipt_json(data)`` reads bytes (the command line);
``receipt_value_problems(document)`` checks a document already parsed (an API
body, a stored receipt).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from core.text import json_path, shorten, unstorable_values

MAX_PROBLEMS = 20


class _Keys(dict[str, Any]):
    """An object of the document in which some key appeared more than once."""

    repeated: list[str]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    repeated: list[str] = []
    for key, value in pairs:
        if key in seen and key not in repeated:
            repeated.append(key)
        seen[key] = value
    if not repeated:
        return seen
    marked = _Keys(seen)
    marked.repeated = repeated
    return marked


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _walk(document: Any) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every value of ``document`` with its path, containers included,
    depth first in document order (iterative: no recursion limit)."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), document)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, dict):
            children = [((*path, str(k)), v) for k, v in value.items()]
        elif isinstance(value, list):
            children = [((*path, i), v) for i, v in enumerate(value)]
        else:
            continue
        stack.extend(reversed(children))


def _path(parts: tuple[str | int, ...]) -> str:
    return json_path(parts, root="")


def duplicate_key_problems(document: Any) -> list[SchemaProblem]:
    """One ``duplicate_key`` problem per key repeated in an object of a
    document read by ``read_receipt_json``'s parser, naming the key."""
    problems = []
    for path, value in _walk(document):
        if isinstance(value, _Keys):
            for key in value.repeated:
                problems.append(
                    SchemaProblem(
                        _path((*path, key)),
                        "duplicate_key",
                        f"duplicate key {shorten(key, 60)!r}: each key may "
                        "appear once per object",
                    )
                )
    return problems[:MAX_PROBLEMS]


def receipt_value_problems(document: Any) -> list[SchemaProblem]:
    """Numbers and strings no receipt can hold, by path: infinite or NaN
    floats (``1e309`` parses as infinity), integers outside 64 bits, strings
    and keys no database column can store. At most ``MAX_PROBLEMS``."""
    problems = [
        SchemaProblem(
            _path(path), "not_finite", "number is not finite (too large for a float)"
        )
        for path, value in _walk(document)
        if isinstance(value, float) and not math.isfinite(value)
    ]
    problems += [
        SchemaProblem(_path(parts), "range", reason)
        for parts, reason in unstorable_values(document, limit=MAX_PROBLEMS)
    ]
    return problems[:MAX_PROBLEMS]


def read_receipt_json(data: bytes) -> Any:
    """The JSON document in ``data``, read strictly (module docstring).

    Raises ``SchemaInvalid`` naming every problem by its path (``$`` for the
    document itself: not UTF-8, not JSON, nested too deep).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SchemaInvalid(
            "unreadable receipt (not UTF-8)",
            problems=[
                SchemaProblem("$", "encoding", f"not UTF-8 at byte {error.start}")
            ],
        ) from None
    try:
        document = json.loads(
            text, object_pairs_hook=_object, parse_constant=_refuse_constant
        )
    except RecursionError:
        raise SchemaInvalid(
            "unreadable receipt (not JSON)",
            problems=[SchemaProblem("$", "invalid_json", "nested too deep")],
        ) from None
    except ValueError as error:
        raise SchemaInvalid(
            "unreadable receipt (not JSON)",
            problems=[SchemaProblem("$", "invalid_json", shorten(str(error), 200))],
        ) from None
    duplicates = duplicate_key_problems(document)
    if duplicates:
        raise SchemaInvalid("the receipt repeats a key", problems=duplicates)
    values = receipt_value_problems(document)
    if values:
        raise SchemaInvalid("the receipt holds values out of range", problems=values)
    return document
