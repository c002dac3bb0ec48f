"""A JSON parser that refuses bodies nested deeper than API_MAX_JSON_DEPTH."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """True when containers in ``value`` nest deeper than ``limit`` (iterative)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in item)
    return False


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


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context=None):
        raw = read_bounded(stream)
        if not raw:
            raise ParseError("Request body is empty; a JSON document is required.")
        try:
            data = json.loads(raw)
        except RecursionError:
            raise ParseError(
                f"JSON nests deeper than {settings.API_MAX_JSON_DEPTH} levels."
            ) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"Malformed JSON: {exc}") from None
        if json_depth_exceeds(data, settings.API_MAX_JSON_DEPTH):
            raise ParseError(
                f"JSON nests deeper than {settings.API_MAX_JSON_DEPTH} levels."
            )
        return data
