"""Use cases of the cognitive stream's agents and their API keys
(``accounts``: the key's prefix, hash and scopes live there).

An agent holds one or more named keys (``AgentKey``); any of them that is
neither revoked nor expired authenticates as the agent. Making an agent,
and making, rescoping, rotating or revoking a key, is written to the audit
log (``accounts.audit``) when someone did it (``by``: a person, or the
command line's ``actor`` label); the agents eval runs make for themselves
are not.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.audit import Action, Origin, audit_record
from accounts.holders import KeyRefused
from accounts.models import ApiKey
from accounts.services import (
    CreatedKey,
    api_key_create,
    api_key_revoke,
    api_key_rotate,
    api_key_scopes_set,
)
from core.scopes import DEFAULT_SCOPES
from stream.models import Agent, AgentKey

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CreatedAgent:
    agent: Agent
    api_key: str


@dataclass(frozen=True, slots=True)
class Actor:
    """Who does an audited action: a signed-in person (``user``), or a
    label of its own (the command line), and from where."""

    user: Any = None
    label: str | None = None
    origin: Origin | None = None


def _audit(
    actor: Actor | None,
    action: str,
    *,
    agent: Agent,
    api_key: ApiKey | None = None,
    details: dict[str, Any],
) -> None:
    if actor is None:
        return
    if api_key is None:
        target_type, target_id, label = "agent", agent.pk, agent.name
    else:
        target_type, target_id = "key", api_key.pk
        label = f"{agent.name} / {api_key.name}"
    audit_record(
        action=action,
        target_type=target_type,
        target_id=target_id,
        target_label=label,
        user=actor.user,
        actor=actor.label,
        target_owner=agent.owner,
        details=details,
        origin=actor.origin,
    )


def agent_create(
    *,
    name: str,
    owner: AbstractBaseUser,
    is_active: bool = True,
    scopes: Iterable[str] = DEFAULT_SCOPES,
    by: Actor | None = None,
) -> CreatedAgent:
    """Create an agent and its first API key (named after the agent); the
    key is returned once, never stored.

    An inactive agent (an eval run's isolated stream) gets no keep-alive ticks
    and its key authenticates nothing. ``scopes`` (``core.scopes``; default
    ``stream`` only) bound what the key may do; ``UnknownScope`` for a name
    that is not a scope, before anything is stored. With ``by``, the audit
    log records it.
    """
    with transaction.atomic():
        created = api_key_create(name=name, owner=owner, scopes=scopes)
        agent = Agent.objects.create(
            name=name, owner=owner, api_key=created.api_key, is_active=is_active
        )
        AgentKey.objects.create(agent=agent, api_key=created.api_key)
        _audit(
            by,
            Action.AGENT_CREATE,
            agent=agent,
            details={
                "owner": owner.get_username(),
                "key": created.api_key.prefix,
                "scopes": created.api_key.scopes,
            },
        )
    logger.info(
        "[Agents] agent_created name=%s prefix=%s scopes=%s",
        name,
        created.api_key.prefix,
        ",".join(created.api_key.scopes),
    )
    return CreatedAgent(agent=agent, api_key=created.key)


def agent_key_create(
    *,
    agent: Agent,
    name: str,
    scopes: Iterable[str] = DEFAULT_SCOPES,
    expires_at: datetime | None = None,
    by: Actor | None = None,
) -> CreatedKey:
    """A new named key for ``agent`` (owned by the agent's owner); the key
    itself is in the result once. ``UnknownScope`` or ``KeyExpiryPast``
    before anything is stored."""
    with transaction.atomic():
        created = api_key_create(
            name=name, owner=agent.owner, scopes=scopes, expires_at=expires_at
        )
        AgentKey.objects.create(agent=agent, api_key=created.api_key)
        _audit(
            by,
            Action.KEY_CREATE,
            agent=agent,
            api_key=created.api_key,
            details={
                "key": created.api_key.prefix,
                "scopes": created.api_key.scopes,
                "expires": expires_at.isoformat(timespec="minutes")
                if expires_at
                else "never",
            },
        )
    logger.info(
        "[Agents] key_created agent=%s prefix=%s", agent.name, created.api_key.prefix
    )
    return created


def agent_key_revoke(*, agent: Agent, api_key: ApiKey, by: Actor | None = None) -> None:
    """The key authenticates nothing from now on (a key already revoked is
    left as it was, and nothing is recorded)."""
    with transaction.atomic():
        if api_key.revoked_at is not None:
            return
        api_key_revoke(api_key=api_key)
        api_key.revoked_at = timezone.now()
        _audit(
            by,
            Action.KEY_REVOKE,
            agent=agent,
            api_key=api_key,
            details={"key": api_key.prefix},
        )
    logger.info("[Agents] key_revoked agent=%s prefix=%s", agent.name, api_key.prefix)


def agent_key_scopes_set(
    *, agent: Agent, api_key: ApiKey, scopes: Iterable[str], by: Actor | None = None
) -> list[str]:
    """Give one of the agent's keys these scopes (``UnknownScope`` before
    anything is stored); the audit log keeps the before and after."""
    before = list(api_key.scopes)
    with transaction.atomic():
        after = api_key_scopes_set(api_key=api_key, scopes=scopes)
        if after != before:
            _audit(
                by,
                Action.KEY_SCOPES,
                agent=agent,
                api_key=api_key,
                details={"key": api_key.prefix, "before": before, "after": after},
            )
    return after


def agent_key_rotate(
    *, agent: Agent, api_key: ApiKey, by: Actor | None = None
) -> CreatedKey:
    """Replace one of the agent's keys by a new one with the same name,
    scopes and expiry; the old one stops working at once. When it was the
    key the agent was made with, the new one takes that place."""
    with transaction.atomic():
        rotated = api_key_rotate(api_key=api_key)
        AgentKey.objects.create(agent=agent, api_key=rotated.api_key)
        if agent.api_key_id == api_key.pk:
            Agent.objects.filter(pk=agent.pk).update(api_key=rotated.api_key)
            agent.api_key = rotated.api_key
        _audit(
            by,
            Action.KEY_ROTATE,
            agent=agent,
            api_key=rotated.api_key,
            details={"old key": api_key.prefix, "new key": rotated.api_key.prefix},
        )
    api_key.revoked_at = timezone.now()
    logger.info(
        "[Agents] key_rotated name=%s prefix=%s", agent.name, rotated.api_key.prefix
    )
    return rotated


def agent_rotate_key(*, agent: Agent, by: Actor | None = None) -> str:
    """Replace the agent's first key; the old key stops working at once."""
    return agent_key_rotate(agent=agent, api_key=agent.api_key, by=by).key


def agent_for_key(api_key: ApiKey) -> Agent | None:
    """The agent whose key this is (registered with ``accounts.holders``,
    loaded with the key): None when no agent holds it, ``KeyRefused`` when
    its agent is inactive. The agent says which key it came with
    (``auth_key``). Touches ``last_seen_at`` at most once a minute: a write
    per request would serialise ingest."""
    try:
        agent: Agent = api_key.agent  # type: ignore[attr-defined]
    except Agent.DoesNotExist:
        try:
            agent = api_key.agent_key.agent  # type: ignore[attr-defined]
        except AgentKey.DoesNotExist:
            return None
    if not agent.is_active:
        raise KeyRefused(agent.name)
    if agent.owner_id == api_key.owner_id:
        agent.owner = api_key.owner
    agent.auth_key = api_key  # type: ignore[attr-defined]
    now = timezone.now()
    if agent.last_seen_at is None or (now - agent.last_seen_at).total_seconds() > 60:
        Agent.objects.filter(pk=agent.pk).update(last_seen_at=now)
    return agent
