"""OTLP attribute values as JSON, and the checked readings of them.

``any_value`` turns an ``AnyValue`` into what a ``JSONField`` stores
(strings made storable, bytes as base64, non-finite doubles as strings);
the readers take such a value for one column: ``token_count`` and
``thought_id`` refuse anything but a non-negative (positive) integer,
``cost_usd`` anything but a non-negative number, each with
``SpanRejected`` worded for the client. Deterministic, no I/O.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from core.text import storable

INT64_MAX: Final = 2**63 - 1
COST_MAX_USD: Final = Decimal(10) ** 9
_COST_PLACES: Final = Decimal("1e-10")
_NON_FINITE: Final = ("NaN", "Infinity", "-Infinity")


class SpanRejected(ValueError):
    """A span that cannot be stored; the message is the reason."""


def attribute_dict(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    """OTLP key-value pairs as a JSON-ready dict (the last of a repeated key
    wins)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key = pair.key
        if "\x00" in key or not key.isascii():
            key = storable(key)
        value = pair.value
        # Each upb accessor costs: a non-empty string (or a non-zero
        # integer) can only be the oneof's set member, so the common cases
        # are read with one access and WhichOneof is asked only otherwise.
        text = value.string_value
        if text:
            out[key] = text if text.isascii() and "\x00" not in text else storable(text)
            continue
        number = value.int_value
        if number:
            out[key] = number
            continue
        out[key] = any_value(value)
    return out


def any_value(value: AnyValue) -> Any:
    """An ``AnyValue`` as JSON: strings made storable, bytes as base64,
    non-finite doubles as the strings ``NaN``, ``Infinity``, ``-Infinity``
    (JSON has no such numbers)."""
    which = value.WhichOneof("value")
    if which == "string_value":
        return storable(value.string_value)
    if which == "int_value":
        return value.int_value
    if which == "double_value":
        number = value.double_value
        if math.isfinite(number):
            return number
        if math.isnan(number):
            return "NaN"
        return "Infinity" if number > 0 else "-Infinity"
    if which == "bool_value":
        return value.bool_value
    if which == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return attribute_dict(value.kvlist_value.values)
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return None


def text_value(value: Any) -> str:
    if type(value) is str:  # the common case, first
        return value
    if value is None or isinstance(value, (dict, list)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def integer_value(value: Any, what: str, *, minimum: int) -> int | None:
    if value is None:
        return None
    number: int
    if isinstance(value, (bool, dict, list)):
        raise SpanRejected(f"{what} must be an integer, got {type(value).__name__}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise SpanRejected(f"{what} must be an integer, got {value!r}")
        number = int(value)
    else:
        text = str(value).strip()
        if text in _NON_FINITE:
            raise SpanRejected(f"{what} must be an integer, got {text}")
        try:
            number = int(text)
        except ValueError:
            raise SpanRejected(
                f"{what} must be an integer, got {text[:40]!r}"
            ) from None
    if number < minimum:
        raise SpanRejected(f"{what} must be at least {minimum}, got {number}")
    if number > INT64_MAX:
        raise SpanRejected(f"{what} is too large ({number})")
    return number


def token_count(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if type(value) is int and 0 <= value <= INT64_MAX:  # the common case
        return value
    return integer_value(value, what, minimum=0)


def thought_id(value: Any) -> int | None:
    return integer_value(value, "evalsite.thought.id", minimum=1)


def cost_usd(value: Any) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, (bool, dict, list)):
        raise SpanRejected("cost must be a number")
    try:
        cost = Decimal(str(value).strip())
    except InvalidOperation:
        raise SpanRejected(f"cost must be a number, got {str(value)[:40]!r}") from None
    if not cost.is_finite() or cost < 0:
        raise SpanRejected(f"cost must be a non-negative number, got {value!r}")
    if cost >= COST_MAX_USD:
        raise SpanRejected(f"cost is too large ({value!r})")
    return cost.quantize(_COST_PLACES)


def seconds_as_ms(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return float(value) * 1000.0


def finish_reason_text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(text_value(item) for item in value)
    return text_value(value)


def json_safe(value: Any) -> Any:
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable(str(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value
