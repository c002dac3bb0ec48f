"""JSON values written the way a JavaScript runtime writes them.

Frames must read exactly as the reference renderer writes them, and that
renderer interpolates values into template strings and calls
``JSON.stringify``. This module decides those two text forms for any JSON
value. Invariants:

- ``js_string(v)`` is ECMAScript ``String(v)``: numbers in the shortest
  round-trip form with JavaScript's exponent rules (``100.0`` -> ``100``,
  ``1e-7`` -> ``1e-7``, ``1e21`` -> ``1e+21``), ``true``/``false``/``null``,
  arrays joined by ``,`` (``null`` items empty), objects ``[object Object]``.
- ``js_json(v)`` is ``JSON.stringify(v)``: no spaces, object keys in
  insertion order except that array-index keys come first in ascending
  order (as JavaScript objects keep them), lone surrogates escaped.
- ``js_round(x)`` is ``Math.round``: halves go up (``-2.5`` -> ``-2``).
- Pure and deterministic; no value makes these raise.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Final

# Integers JavaScript holds exactly; beyond them it keeps a double.
_SAFE_INTEGER: Final = 2**53
_MAX_INDEX: Final = 2**32 - 2
_SURROGATE = re.compile("[\ud800-\udfff]")


def js_round(value: float) -> float:
    """``Math.round(value)``: the nearest integer, halves toward +infinity.

    A double, as in JavaScript; write it with ``js_number``.
    """
    number = float(value)  # JavaScript holds every number as a double
    floor = math.floor(number)
    return float(floor + 1 if number - floor >= 0.5 else floor)


def js_number(value: float) -> str:
    """ECMAScript ``Number::toString`` of ``value`` (non-finite: ``NaN`` etc.)."""
    if isinstance(value, int) and -_SAFE_INTEGER < value < _SAFE_INTEGER:
        return str(value)
    number = float(value)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    if number < 0:
        return "-" + js_number(-number)
    sign, digit_tuple, exponent = Decimal(repr(number)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    # repr's digits are the shortest that round-trip, as JavaScript's are.
    k = len(digits)
    n = exponent + len(digit_tuple)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    power = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def js_string(value: object) -> str:
    """ECMAScript ``String(value)`` of a JSON value (what `${value}` shows)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def _is_index(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or key[0] != "0")
        and int(key) <= _MAX_INDEX
    )


def _quote(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def js_json(value: object) -> str:
    """``JSON.stringify(value)`` of a JSON value (as parsed by ``json.loads``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        number = float(value)
        return js_number(value) if math.isfinite(number) else "null"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list):
        return "[" + ",".join(js_json(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = [str(k) for k in value]
        ordered = sorted((k for k in keys if _is_index(k)), key=int) + [
            k for k in keys if not _is_index(k)
        ]
        items = {str(k): v for k, v in value.items()}
        return (
            "{" + ",".join(_quote(k) + ":" + js_json(items[k]) for k in ordered) + "}"
        )
    return _quote(str(value))


# --- string lengths ----------------------------------------------------------

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_len(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units (an emoji counts 2)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_advance(text: str, start: int, units: int) -> int:
    """The index reached from ``start`` after ``units`` UTF-16 code units.

    A character that starts inside the span counts as read, as JavaScript
    reads its first half; the index never passes ``len(text)``. Reads at most
    ``units`` characters.
    """
    end = min(len(text), start + units)
    if _ASTRAL.search(text, start, end) is None:
        return end
    index = start
    read = 0
    while index < len(text) and read < units:
        read += 2 if ord(text[index]) > 0xFFFF else 1
        index += 1
    return index
