"""The audit log: who did what to agents, keys, baselines and packs, when
and from where.

``audit_record`` writes one entry; the services that do an audited action
call it (the pages, the API and ``create_agent`` go through them). Where
from comes from the request being served: ``audit_origin`` reads it off a
request, and ``AuditOriginMiddleware`` (with the API-key authentication,
for key calls) makes it the current one for entries written while that
request is served, so a service several calls down need not be handed it.
The command line is an actor of its own, named with the OS user.
"""

from __future__ import annotations

import contextvars
import getpass
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts.models import ApiKey, AuditEntry
from evalsite.login import client_address

Action = AuditEntry.Action

# Details are a small table: this many rows, each value this long at most.
DETAILS_MAX_ROWS = 20
DETAILS_MAX_VALUE = 200


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an action came from."""

    remote_addr: str = ""
    user_agent: str = ""


COMMAND_LINE_ORIGIN = Origin(remote_addr="", user_agent="command line")
# The request being served: its origin is read only when an entry is
# written, so the requests that write none (nearly all) pay for a
# context-variable set and nothing else.
_current: contextvars.ContextVar[HttpRequest | None] = contextvars.ContextVar(
    "audit_request", default=None
)


def audit_origin(request: HttpRequest) -> Origin:
    """The client address (``LOGIN_CLIENT_ADDRESS_HEADER`` behind a proxy,
    as sign-in reads it) and user agent of ``request``."""
    return Origin(
        remote_addr=client_address(request),
        user_agent=str(request.META.get("HTTP_USER_AGENT", ""))[:256],
    )


class AuditOriginMiddleware:
    """Sets the current origin for the request it serves, and clears it
    after, so entries a service writes say where the request came from."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _current.set(request)
        try:
            return self.get_response(request)
        finally:
            _current.reset(token)


def command_line_actor() -> str:
    """The actor label of a management command: the OS user running it."""
    try:
        who = getpass.getuser()
    except (KeyError, OSError):
        who = "unknown user"
    return f"command line ({who})"


def key_label(api_key: ApiKey) -> str:
    return f"key {api_key.name} ({api_key.prefix})"


def _details(details: Mapping[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in list((details or {}).items())[:DETAILS_MAX_ROWS]:
        if isinstance(value, (list, tuple, set, frozenset)):
            value = ", ".join(str(v) for v in value) or "none"
        out[str(name)[:64]] = str(value)[:DETAILS_MAX_VALUE]
    return out


def audit_record(
    *,
    action: str,
    target_type: str,
    target_id: object,
    target_label: str,
    user: Any = None,
    key: ApiKey | None = None,
    actor: str | None = None,
    target_owner: Any = None,
    details: Mapping[str, Any] | None = None,
    origin: Origin | None = None,
) -> AuditEntry:
    """Record ``action`` on a target. The actor is ``key`` when the action
    was made with one, else ``user`` when signed in; ``actor`` overrides the
    label (the command line). ``origin`` defaults to the current request's.
    """
    user = user if getattr(user, "is_authenticated", False) else None
    if actor is None:
        if key is not None:
            actor = key_label(key)
        elif user is not None:
            actor = user.get_username()
        else:
            actor = "system"
    serving = _current.get()
    where = origin or (audit_origin(serving) if serving is not None else Origin())
    owner = target_owner if getattr(target_owner, "pk", None) else None
    return AuditEntry.objects.create(
        at=timezone.now(),
        actor_user=None if key is not None else user,
        actor_key=key,
        actor_label=actor[:150],
        action=Action(action).value,
        target_type=target_type[:32],
        target_id=str(target_id)[:64],
        target_label=target_label[:200],
        target_owner=owner,
        details=_details(details),
        remote_addr=where.remote_addr[:64],
        user_agent=where.user_agent[:256],
    )
