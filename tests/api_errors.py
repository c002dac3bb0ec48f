"""Reading the API's error contract in tests."""

from __future__ import annotations

from typing import Any


def error_fields(response: Any) -> dict[str, list[str]]:
    """``error.fields`` of an answer as ``{path: [message, ...]}`` (in the
    answer's order), after checking every entry is exactly ``{path, message}``."""
    fields = response.json()["error"]["fields"]
    assert isinstance(fields, list), fields
    grouped: dict[str, list[str]] = {}
    for entry in fields:
        assert sorted(entry) == ["message", "path"], entry
        grouped.setdefault(entry["path"], []).append(entry["message"])
    return grouped
