"""JSON text as the standard library writes it, in the three shapes the
project stores: indented files, compact lines, the canonical receipts.

orjson wrote these ~10x faster where it writes alike, but measured where
the time is spent (``bench/fastpaths.py``: governed gridworld steps/s,
scenario artifacts written/s) it bought 1.08-1.17x and 0.89x, under the
1.5x a second implementation must earn; the standard library writes them.
``orjson_writes_alike`` stays for ``core.canonical``, whose canonical JSON
uses orjson on the documents it proves alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

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
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def compact_json_text(document: Mapping[str, Any]) -> str:
    """``json.dumps(document, ensure_ascii=False, separators=(",", ":"))``
    (keys in their order)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def sorted_compact_json_text(document: Any) -> str:
    """``json.dumps(document, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)``: the canonical JSON that gridworld receipts hash."""
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
