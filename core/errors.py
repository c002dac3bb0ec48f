"""Domain errors shared by every pure core.

A ``CoreError`` carries a stable machine-readable ``code``, a human message and
optional ``details``; the HTTP layer maps it to ``{"error": {...}}`` and the CLI
layer to a non-zero exit. No HTTP status codes live here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One validation problem: where (JSON path), what kind, and why."""

    path: str
    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "code": self.code, "message": self.message}


class CoreError(Exception):
    """Base of every domain error raised by a ``core`` package."""

    code: str = "core_error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details: dict[str, Any] = details or {}


class SchemaInvalid(CoreError):
    """A document failed structural or semantic validation.

    ``problems`` holds every problem found, sorted by path, never only the first.
    """

    code = "invalid"

    def __init__(self, message: str, *, problems: list[SchemaProblem]) -> None:
        super().__init__(message, details={"problems": [p.as_dict() for p in problems]})
        self.problems: tuple[SchemaProblem, ...] = tuple(
            sorted(problems, key=lambda p: (p.path, p.code, p.message))
        )


class NotFound(CoreError):
    code = "not_found"


class Conflict(CoreError):
    """The requested transition is illegal in the current state."""

    code = "conflict"


class Forbidden(CoreError):
    """The caller is known but may not do this (a key without the scope, a
    person who is not staff)."""

    code = "forbidden"


class ServiceUnavailable(CoreError):
    """A service the operation needs (database, broker) cannot be reached
    now; nothing was left half-done, and the same request may be retried."""

    code = "unavailable"


@dataclass(frozen=True, slots=True)
class Reason:
    """A decision with its machine-readable reason code."""

    ok: bool
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


def problem_path(key: str) -> str:
    """A field key as the error contract writes it: a JSONPath into the
    request body (``a.b[0]`` -> ``$.a.b[0]``; the whole body is ``$``).

    Keys already rooted (``$...``, a query parameter ``?limit``, a header
    ``header:X-Name``, the request's URL path ``url:path``) are kept as they
    are.
    """
    if key in ("", "non_field_errors", "__all__"):
        return "$"
    if key.startswith(("$", "?", "header:", "url:")):
        return key
    if key.startswith("["):
        return "$" + key
    return "$." + key


def problem_list(
    problems: Mapping[str, Sequence[str]] | Iterable[SchemaProblem] | None,
) -> list[dict[str, str]]:
    """``[{"path", "message"}, ...]``: every problem, paths normalised by
    ``problem_path``, in the order given (one entry per message)."""
    if problems is None:
        return []
    if isinstance(problems, Mapping):
        return [
            {"path": problem_path(str(key)), "message": str(message)}
            for key, messages in problems.items()
            for message in messages
        ]
    return [{"path": problem_path(p.path), "message": p.message} for p in problems]


def error_document(
    code: str,
    message: str,
    problems: Mapping[str, Sequence[str]] | Iterable[SchemaProblem] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The one error contract of every API answer:
    ``{"error": {"code", "message", "fields": [{"path", "message"}], ...}}``.

    ``extra`` keys (a conflict's current state, a suite's invalid lines) sit
    beside the three contract keys and never replace them.
    """
    body: dict[str, Any] = {k: v for k, v in extra.items() if k not in _CONTRACT}
    body.update(code=code, message=message, fields=problem_list(problems))
    return {"error": body}


_CONTRACT = frozenset({"code", "message", "fields"})
