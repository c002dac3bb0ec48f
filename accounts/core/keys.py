"""What an API key looks like and how it is stored.

A key is ``es_<prefix>_<secret>``: the prefix (12 hex digits) finds the key,
the sha256 of the whole key is compared in constant time. Keys carry 256 bits
of randomness, so a plain sha256 suffices; a slow password hash would only
slow every request down. Deterministic apart from ``key_new``; no Django.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Final

KEY_PREFIX_BYTES: Final = 6
KEY_SECRET_BYTES: Final = 32


@dataclass(frozen=True, slots=True)
class NewKey:
    prefix: str
    key: str
    key_hash: str


def key_hash(key: str) -> str:
    """The sha256 (hex) stored for ``key``."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_new() -> NewKey:
    """A fresh key, its prefix and its hash."""
    prefix = secrets.token_hex(KEY_PREFIX_BYTES)
    key = f"es_{prefix}_{secrets.token_urlsafe(KEY_SECRET_BYTES)}"
    return NewKey(prefix=prefix, key=key, key_hash=key_hash(key))


def key_prefix(key: str) -> str | None:
    """The prefix of a well-formed key, None for anything else."""
    parts = key.split("_")
    if len(parts) < 3 or parts[0] != "es":
        return None
    return parts[1]


def key_matches(key: str, stored_hash: str) -> bool:
    """Whether ``key`` is the one whose hash is stored (constant time)."""
    return hmac.compare_digest(stored_hash, key_hash(key))
