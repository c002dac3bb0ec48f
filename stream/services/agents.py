"""Use cases of the cognitive stream."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from core.scopes import DEFAULT_SCOPES, parse_scopes
from stream.models import Agent
from stream.selectors import active_agent_by_prefix

logger = logging.getLogger(__name__)

KEY_PREFIX_BYTES = 6


def _hash_key(key: str) -> str:
    # API keys carry 256 bits of randomness, so a plain sha256 suffices; a slow
    # password hash would only slow every request down.
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CreatedAgent:
    agent: Agent
    api_key: str


def agent_create(
    *,
    name: str,
    owner: AbstractBaseUser,
    is_active: bool = True,
    scopes: Iterable[str] = DEFAULT_SCOPES,
) -> CreatedAgent:
    """Create an agent and its API key; the key is returned once, never stored.

    An inactive agent (an eval run's isolated stream) gets no keep-alive ticks
    and its key authenticates nothing. ``scopes`` (``core.scopes``; default
    ``stream`` only) bound what the key may do; ``UnknownScope`` for a name
    that is not a scope, before anything is stored.
    """
    granted = list(parse_scopes(scopes))
    prefix = secrets.token_hex(KEY_PREFIX_BYTES)
    api_key = f"es_{prefix}_{secrets.token_urlsafe(32)}"
    with transaction.atomic():
        agent = Agent.objects.create(
            name=name,
            owner=owner,
            key_prefix=prefix,
            key_hash=_hash_key(api_key),
            is_active=is_active,
            scopes=granted,
        )
    logger.info(
        "[Agents] agent_created name=%s prefix=%s scopes=%s",
        name,
        prefix,
        ",".join(granted),
    )
    return CreatedAgent(agent=agent, api_key=api_key)


def agent_rotate_key(*, agent: Agent) -> str:
    """Replace the agent's key; the old key stops working at once."""
    prefix = secrets.token_hex(KEY_PREFIX_BYTES)
    api_key = f"es_{prefix}_{secrets.token_urlsafe(32)}"
    Agent.objects.filter(pk=agent.pk).update(
        key_prefix=prefix, key_hash=_hash_key(api_key)
    )
    logger.info("[Agents] key_rotated name=%s prefix=%s", agent.name, prefix)
    return api_key


def agent_authenticate(*, key: str) -> Agent | None:
    """The active agent whose key this is, or None."""
    parts = key.split("_")
    if len(parts) < 3 or parts[0] != "es":
        return None
    agent = active_agent_by_prefix(parts[1])
    if agent is None or not hmac.compare_digest(agent.key_hash, _hash_key(key)):
        return None
    now = timezone.now()
    # Touch at most once a minute: a write per request would serialise ingest.
    if agent.last_seen_at is None or (now - agent.last_seen_at).total_seconds() > 60:
        Agent.objects.filter(pk=agent.pk).update(last_seen_at=now)
    return agent
