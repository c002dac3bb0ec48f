"""Rules of a webhook delivery that need no database: the signature header's
shape, the headers a delivery is stored under, the payload digest that finds
replays, and the numbers JSON cannot carry.

GitHub sends ``X-Hub-Signature-256: sha256=<64 hex digits>``, a delivery
GUID (a UUID) in ``X-GitHub-Delivery`` and an event name such as
``issue_comment`` in ``X-GitHub-Event``. Anything else in those headers is
refused with the header named, never stored.

What intake answers is said here in domain terms: a delivery is received
with one of the ``Receipt`` outcomes, or refused with ``DeliveryUnverified``
(no secret can verify it) or ``DeliveryInvalid`` (headers or body unusable).
Only the API turns these into HTTP status codes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from core.errors import CoreError, SchemaProblem, error_document

GUID_MAX = 100
EVENT_MAX = 50
ACTION_MAX = 50

_SIGNATURE = re.compile(r"sha256=([0-9a-f]{64})")
_GUID = re.compile(r"[0-9A-Za-z][0-9A-Za-z._:-]*")
_EVENT = re.compile(r"[a-z][a-z0-9_]*")


def signature_digest(header: str) -> bytes | None:
    """The 32 bytes an ``X-Hub-Signature-256`` value carries, or None when
    it does not have GitHub's shape (missing, another algorithm, not hex,
    not ASCII)."""
    match = _SIGNATURE.fullmatch(header.strip().lower())
    return bytes.fromhex(match.group(1)) if match else None


def header_problems(*, guid: str, event: str) -> dict[str, list[str]]:
    """``{"header:<Name>": [reason]}`` for a delivery GUID or event name that
    is missing, too long or not of GitHub's shape."""
    problems: dict[str, list[str]] = {}
    for header, value, limit, shape, words in (
        ("X-GitHub-Delivery", guid, GUID_MAX, _GUID, "letters, digits and - . _ :"),
        ("X-GitHub-Event", event, EVENT_MAX, _EVENT, "lower-case letters, digits, _"),
    ):
        if not value:
            problems[f"header:{header}"] = ["is required"]
        elif len(value) > limit:
            problems[f"header:{header}"] = [f"is longer than {limit} characters"]
        elif not shape.fullmatch(value):
            problems[f"header:{header}"] = [f"must be {words}"]
    return problems


def payload_digest(event: str, body: bytes) -> str:
    """SHA-256 of the event name and the raw body: a replay under a new GUID
    has the same digest, and GitHub's redeliveries keep their GUID."""
    return hashlib.sha256(event.encode() + b"\n" + body).hexdigest()


def action_of(payload: dict[str, Any]) -> str:
    """The payload's ``action`` as stored on the delivery: text only, cut to
    the column's length."""
    action = payload.get("action")
    return action[:ACTION_MAX] if isinstance(action, str) else ""


class Receipt(StrEnum):
    """How a verified delivery was received (the answer's ``status``)."""

    PONG = "pong"
    DUPLICATE = "duplicate"
    REPLAYED = "replayed"
    IGNORED = "ignored"
    STORED = "stored"
    QUEUED = "queued"


type Fields = Mapping[str, Sequence[str]] | Sequence[SchemaProblem]


class DeliveryRefused(CoreError):
    """A delivery refused before anything is stored; ``document`` is the
    error answer (the contract's ``{"error": {...}}``)."""

    def __init__(self, code: str, message: str, fields: Fields) -> None:
        super().__init__(message, code=code)
        self.fields = fields

    def document(self) -> dict[str, Any]:
        return error_document(self.code, self.message, self.fields)


class DeliveryUnverified(DeliveryRefused):
    """No configured secret verifies the delivery: no secret at all
    (``webhook_secret_unset``) or a missing or wrong signature
    (``bad_signature``)."""


class DeliveryInvalid(DeliveryRefused):
    """The headers or the body are unusable (code ``invalid``, every field
    named)."""

    def __init__(self, message: str, fields: Fields) -> None:
        super().__init__("invalid", message, fields)
