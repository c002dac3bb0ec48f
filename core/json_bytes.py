"""JSON text as the standard library writes it, made by orjson where that
gives the same bytes.

``json.dumps`` with ``indent`` runs in pure Python; orjson is ~10x faster
but writes some values differently (floats that ``repr`` writes with an
exponent, NaN and infinities, enums, dates, dataclasses, subclasses). These
functions return exactly what the ``json`` call named in each docstring
returns: orjson's bytes when every value of the document is one it writes
alike, the standard library's otherwise (raising what it raises).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson

_INDENTED = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
_SORTED = orjson.OPT_SORT_KEYS
# json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False),
# with the encoder built once instead of per call (the same text).
_SORTED_COMPACT = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False
)
_SCALARS = frozenset({str, int, bool, type(None)})
_STR_KEYS = frozenset({str})


def indented_json_bytes(document: Mapping[str, Any]) -> bytes:
    """``json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
    + "\\n"`` encoded as UTF-8."""
    if orjson_writes_alike(document):
        try:
            return orjson.dumps(document, option=_INDENTED) + b"\n"
        except orjson.JSONEncodeError:
            pass  # a lone surrogate, an int beyond 64 bits, too deep
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def compact_json_text(document: Mapping[str, Any]) -> str:
    """``json.dumps(document, ensure_ascii=False, separators=(",", ":"))``
    (keys in their order)."""
    if orjson_writes_alike(document):
        try:
            return orjson.dumps(document).decode("utf-8")
        except orjson.JSONEncodeError:
            pass
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def sorted_compact_json_text(document: Any) -> str:
    """``json.dumps(document, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)``: the canonical JSON that gridworld receipts hash."""
    if orjson_writes_alike(document):
        try:
            return orjson.dumps(document, option=_SORTED).decode("utf-8")
        except orjson.JSONEncodeError:
            pass
    return _SORTED_COMPACT.encode(document)


def orjson_writes_alike(document: Any, *, rounded_to: int | None = None) -> bool:
    """Whether orjson writes ``document`` byte for byte as ``json.dumps``
    does: a dict of plain dicts with str keys, lists, tuples, str, int,
    bool, None, and floats that ``repr`` writes without an exponent (0 or
    1e-4 <= |x| < 1e16). Anything else goes to the standard library.

    ``rounded_to``: also only when every float is already what
    ``round(x, rounded_to)`` makes of it (the canonical JSON rounds floats).
    """
    if type(document) is not dict:
        return False
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            if node and set(map(type, node)) != _STR_KEYS:
                return False
            values = node.values()
        else:
            values = node
        for value in values:
            kind = type(value)
            if kind in _SCALARS:
                continue
            if kind is float:
                if value != 0.0 and not 1e-4 <= abs(value) < 1e16:
                    return False
                if rounded_to is not None and round(value, rounded_to) != value:
                    return False
            elif kind is dict or kind is list or kind is tuple:
                stack.append(value)
            else:
                return False
    return True
