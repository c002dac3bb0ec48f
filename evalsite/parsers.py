"""The API's JSON parser: one place that refuses bodies no endpoint can store.

Every JSON body is refused with a 400 before any view sees it when it is
larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413), not UTF-8 (UTF-16/32 and
a byte-order mark included), nests deeper than ``API_MAX_JSON_DEPTH``, holds
``NaN``/``Infinity`` (JSON has no such numbers; jsonb refuses them), or holds
a string or key that no database column can store (NUL, lone surrogates),
an integer outside 64 bits or a number that overflows to infinity (``1e400``).
The last two name the offending field as a path (``thoughts[0].content``,
``$`` for the body itself).

Speed: a body first goes through ``orjson`` when its bytes prove that the
answer cannot differ from the standard library's: no ``\\u0000`` escape (the
only way a JSON string holds a NUL), no run of 19 digits (the only way an
integer leaves 64 bits, where orjson would give a float), no byte-order
mark. orjson refuses everything else the checks refuse (lone surrogates,
``NaN``, numbers that overflow to infinity, invalid UTF-8) and keeps the last
of duplicate keys as ``json.loads`` does; when it refuses, the body takes the
standard-library path, which alone words every refusal.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.parsers import JSONParser

from core.text import json_path, non_finite_numbers, shorten, unstorable_values

MAX_REPORTED_FIELDS = 20

# Digits as "0", every other byte as "x": a run of 19 zeros in the result is
# a run of 19 digits, the only way to write an integer outside 64 bits.
_DIGITS_AS_ZERO = bytes(48 if 48 <= byte <= 57 else 120 for byte in range(256))
_LONG_DIGITS = b"0" * 19
_BYTE_ORDER_MARKS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_CONTAINERS = (dict, list)


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """True when containers in ``value`` nest deeper than ``limit`` (iterative,
    one level at a time; only containers are kept for the next level)."""
    level = [value] if isinstance(value, _CONTAINERS) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        deeper: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            deeper += [child for child in children if isinstance(child, _CONTAINERS)]
        level = deeper
        depth += 1
    return False


def unstorable_fields(value: Any) -> dict[str, list[str]]:
    """``{path: [reason]}`` for every value no column can store (a number
    ``json.loads`` made infinite included), named the way DRF names fields
    (``thoughts[0].content``; ``$`` for the body)."""
    found: dict[str, list[str]] = {}
    for parts, reason in unstorable_values(value, limit=MAX_REPORTED_FIELDS):
        found.setdefault(json_path(parts, root=""), []).append(reason)
    for parts in non_finite_numbers(value, limit=MAX_REPORTED_FIELDS):
        found.setdefault(json_path(parts, root=""), []).append("number is not finite")
    return found


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "Request body exceeds the size limit."


def read_bounded(stream: Any) -> bytes:
    """The whole body, or PayloadTooLarge past DATA_UPLOAD_MAX_MEMORY_SIZE.

    DRF reads the request as a stream, which skips Django's own body limit.
    """
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    raw = stream.read(limit + 1) if stream is not None else b""
    if len(raw) > limit:
        raise PayloadTooLarge()
    return raw


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def decode_json_text(raw: bytes) -> str:
    """The body as text: strict UTF-8 with no byte-order mark, else ParseError.

    ``json.loads`` would guess UTF-16/32 and skip a BOM; the API's contract is
    UTF-8 (RFC 8259), and a guessed encoding hides a client bug.
    """
    if raw.startswith(_BYTE_ORDER_MARKS):
        raise ParseError(
            "Request body starts with a byte-order mark; send UTF-8 JSON without one."
        )
    if b"\x00" in raw[:4]:
        # JSON text starts with ASCII: NUL bytes among the first four are the
        # signature of UTF-16/32 (RFC 8259 section 8.1 before it required UTF-8).
        raise ParseError("Request body is UTF-16 or UTF-32; JSON must be UTF-8.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(
            f"Request body is not UTF-8 (byte {error.start}); JSON must be UTF-8."
        ) from None


def parse_json_body(raw: bytes) -> Any:
    """A JSON body parsed and checked as the module docstring says."""
    if (
        raw
        and not raw.startswith(_BYTE_ORDER_MARKS)
        and b"\\u0000" not in raw
        and _LONG_DIGITS not in raw.translate(_DIGITS_AS_ZERO)
    ):
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # the standard library words the refusal
        else:
            if not json_depth_exceeds(data, settings.API_MAX_JSON_DEPTH):
                return data
    return parse_json_body_checked(raw)


def parse_json_body_checked(raw: bytes) -> Any:
    """``parse_json_body`` through the standard library and every check: the
    answer the fast path must equal, and the one that words refusals."""
    if not raw:
        raise ParseError("Request body is empty; a JSON document is required.")
    text = decode_json_text(raw)
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ParseError(
            f"JSON nests deeper than {settings.API_MAX_JSON_DEPTH} levels."
        ) from None
    except ValueError as exc:
        raise ParseError(f"Malformed JSON: {shorten(str(exc), 200)}") from None
    if json_depth_exceeds(data, settings.API_MAX_JSON_DEPTH):
        raise ParseError(
            f"JSON nests deeper than {settings.API_MAX_JSON_DEPTH} levels."
        )
    problems = unstorable_fields(data)
    if problems:
        raise ValidationError(problems)
    return data


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context=None):
        return parse_json_body(read_bounded(stream))


def require_no_body(request: Any) -> None:
    """Refuse a body on an operation that takes none: nothing or ``{}`` only.

    The body is still read through the parsers, so an oversized one is a 413
    and a malformed one a 400, like everywhere else.
    """
    data = request.data
    if data is None or (hasattr(data, "keys") and not list(data.keys())):
        return
    raise ValidationError({"$": ["This operation takes no body: send nothing or {}."]})
