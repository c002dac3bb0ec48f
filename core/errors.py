"""Domain errors shared by every pure core.

A ``CoreError`` carries a stable machine-readable ``code``, a human message and
optional ``details``; the HTTP layer maps it to ``{"error": {...}}`` and the CLI
layer to a non-zero exit. No HTTP status codes live here.
"""

from __future__ import annotations

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
