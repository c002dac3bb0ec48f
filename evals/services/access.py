"""Who may change what the CI gate compares against.

Baseline snapshots and the replacement of a pack by a different one (``force``)
move the ground the gate stands on, so they need more than a login: an API
key needs the scope (``baselines:write``, ``benchmarks:replace``), a person
needs to be staff. The key decides alone when there is one: a key never
borrows its owner's staff status. Callers without a user (management
commands, the demo loader) are the operator, and may.
"""

from __future__ import annotations

import logging
from typing import Any

from core.errors import Forbidden
from core.scopes import key_may

logger = logging.getLogger(__name__)


def key_name(key: Any) -> str:
    """The name recorded for the key that did something ('' for none)."""
    return str(getattr(key, "name", "") or "")


def actor_label(user: Any, key: Any) -> str:
    """``key:<agent>``, ``user:<username>`` or ``operator``, for log lines."""
    if key is not None:
        return f"key:{key_name(key)}"
    if getattr(user, "is_authenticated", False):
        return f"user:{user.get_username()}"
    return "operator"


def require_gate_privilege(*, user: Any, key: Any, scope: str, action: str) -> None:
    """Raise ``Forbidden`` unless ``key`` has ``scope`` (when there is a key)
    or ``user`` is staff (when there is none). Logs the refusal."""
    if key is not None:
        allowed = key_may(getattr(key, "scopes", ()), scope)
        needs = f"an API key with the {scope!r} scope"
    elif user is None or not getattr(user, "is_authenticated", False):
        allowed = user is None
        needs = "a staff login"
    else:
        allowed = bool(getattr(user, "is_staff", False))
        needs = f"a staff login or an API key with the {scope!r} scope"
    if allowed:
        return
    logger.warning(
        "[Auth] refused action=%s by=%s needs=%s",
        action,
        actor_label(user, key),
        scope,
    )
    raise Forbidden(f"{action} needs {needs}.", details={"scope": scope})
