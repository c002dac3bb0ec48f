"""What a key stands for, told by the apps that give keys to their own
principals (``holder_register`` from their ``AppConfig.ready()``).

A request made with a key gets, as ``request.auth``, what the holders make of
it: the stream's agent for an agent's key, or the ``ApiKey`` itself when no
app holds it. ``key_of`` goes back from ``request.auth`` to the key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from accounts.models import ApiKey

# Takes a key, returns its principal, or None when the key is not this
# holder's; raises KeyRefused when it is but may not be used (an inactive
# agent's key).
KeyHolder = Callable[[ApiKey], Any]


class KeyRefused(Exception):
    """The key belongs to a principal that may not use it now."""


_holders: list[KeyHolder] = []
_related: list[str] = []


def holder_register(holder: KeyHolder, *, select_related: tuple[str, ...] = ()) -> None:
    """Add a holder (once; registering the same function again is a no-op).
    ``select_related`` names the reverse relations from the key to the
    holder's principal, loaded with the key in the same query."""
    if holder not in _holders:
        _holders.append(holder)
    _related.extend(name for name in select_related if name not in _related)


def holder_relations() -> tuple[str, ...]:
    """The relations the holders asked to load with a key."""
    return tuple(_related)


def key_principal(api_key: ApiKey) -> Any:
    """What ``api_key`` stands for (``KeyRefused`` passes through)."""
    for holder in _holders:
        principal = holder(api_key)
        if principal is not None:
            return principal
    return api_key


def key_of(auth: Any) -> ApiKey | None:
    """The key behind ``request.auth``: a key, or a principal that says
    which of its keys it came with (``auth_key``; a principal with several
    keys sets it) or has one ``api_key``; None for a session, which sets no
    ``auth``."""
    if isinstance(auth, ApiKey):
        return auth
    api_key = getattr(auth, "auth_key", None) or getattr(auth, "api_key", None)
    return api_key if isinstance(api_key, ApiKey) else None
