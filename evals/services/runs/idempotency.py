"""Starting a run with an ``Idempotency-Key``: a retry returns the first run.

A client that did not get an answer (a timeout, a dropped connection, a 503)
sends the same request again with the same ``Idempotency-Key`` header; the
run that the first request created (if it did) is answered again, with the
header ``Idempotent-Replayed: true``, instead of a second run. Keys belong to
their holder (an API key, or a signed-in user), are stored with the run
(``RunIdempotencyKey``, unique per holder, so concurrent retries make one
run), and go away with it. The same key with a different body is refused
(409 ``idempotency_key_reused``). A start that answered 5xx stored nothing,
so its retry starts the run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError

from accounts.holders import key_of
from core.errors import Conflict, SchemaInvalid, SchemaProblem
from evals.models import Run, RunIdempotencyKey

HEADER = "Idempotency-Key"
MAX_KEY_CHARS = 255


class IdempotencyKeyReused(Conflict):
    """The key was already used for a request with another body."""

    code = "idempotency_key_reused"


@dataclass(frozen=True)
class Idempotency:
    holder: str
    key: str
    fingerprint: str


def holder_of(user: Any, auth: Any) -> str:
    """Who owns a key: the API key a request came with, else its user."""
    key = key_of(auth)
    if key is not None:
        return f"key:{key.prefix}"
    return f"user:{user.pk}"


def idempotency_of(
    *, header: str | None, holder: str, body: Mapping[str, Any]
) -> Idempotency | None:
    """The request's idempotency (None without the header); a key that is
    empty, longer than 255 characters or not printable ASCII is a 400."""
    if header is None:
        return None
    key = header.strip()
    if not key or len(key) > MAX_KEY_CHARS or not all(" " <= c <= "~" for c in key):
        raise SchemaInvalid(
            f"Invalid {HEADER} header.",
            problems=[
                SchemaProblem(
                    f"header:{HEADER}",
                    "invalid",
                    f"{HEADER} must be 1 to {MAX_KEY_CHARS} printable ASCII characters",
                )
            ],
        )
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return Idempotency(holder, key, hashlib.sha256(canonical.encode()).hexdigest())


def idempotency_record(run: Run, idempotency: Idempotency | None) -> None:
    """Store the key with ``run``, in the transaction that creates the run:
    a concurrent start with the same key fails here (unique per holder)."""
    if idempotency is not None:
        RunIdempotencyKey.objects.create(
            holder=idempotency.holder,
            key=idempotency.key,
            fingerprint=idempotency.fingerprint,
            run=run,
        )


def _first_run(idempotency: Idempotency) -> Run | None:
    found = (
        RunIdempotencyKey.objects.select_related("run", "run__benchmark")
        .filter(holder=idempotency.holder, key=idempotency.key)
        .first()
    )
    if found is None:
        return None
    if found.fingerprint != idempotency.fingerprint:
        raise IdempotencyKeyReused(
            f"This {HEADER} was used for a request with another body; "
            "use a new key for a new run."
        )
    return found.run


def run_start_once(
    idempotency: Idempotency | None, start: Callable[[], Run]
) -> tuple[Run, bool]:
    """``(run, replayed)``: the first run of this key when there is one,
    else the run ``start`` makes (passing ``idempotency`` on to
    ``run_create``). ``start`` must not run inside a transaction."""
    if idempotency is None:
        return start(), False
    first = _first_run(idempotency)
    if first is not None:
        return first, True
    try:
        return start(), False
    except IntegrityError:
        # A concurrent start with the same key committed first.
        first = _first_run(idempotency)
        if first is None:
            raise
        return first, True
