"""Conversions the benchmark formats share: instants as the eval-store contract writes
them, extra pack files as stored (base64 text), and problems of a nested
document re-rooted under their place in the outer one.

Pure; same inputs give the same output.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from core.errors import SchemaInvalid, SchemaProblem
from evals.core.format_rules import parse_timestamp


def wire_timestamp(moment: datetime) -> str:
    """``2026-03-06T10:00:00.000Z``: how the eval-store contract writes instants."""
    text = moment.astimezone(UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def instant(text: str) -> datetime:
    parsed = parse_timestamp(text)
    if parsed is None:  # validated documents only reach here
        raise ValueError(f"not a valid ISO timestamp: {text!r}")
    return parsed


def encode_files(files: Mapping[str, bytes]) -> dict[str, str]:
    """Extra pack files as stored in ``pack_files``: path -> base64 text."""
    return {
        path: base64.b64encode(files[path]).decode("ascii") for path in sorted(files)
    }


def decode_files(files: Mapping[str, str]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for path, text in files.items():
        try:
            out[path] = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise SchemaInvalid(
                "stored pack file is not base64",
                problems=[
                    SchemaProblem(
                        f"$.files.{path}", "invalid", "stored pack file is not base64"
                    )
                ],
            ) from None
    return out


def problems_at(prefix: str, problems: Iterable[SchemaProblem]) -> list[SchemaProblem]:
    """Problems of a nested document, re-rooted under ``prefix`` (``$.records[2]``)."""
    return [
        SchemaProblem(prefix + problem.path[1:], problem.code, problem.message)
        for problem in problems
    ]
