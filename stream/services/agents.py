"""Use cases of the cognitive stream's agents and their API keys
(``accounts``: the key's prefix, hash and scopes live there)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.holders import KeyRefused
from accounts.models import ApiKey
from accounts.services import api_key_create, api_key_rotate
from core.scopes import DEFAULT_SCOPES
from stream.models import Agent

logger = logging.getLogger(__name__)


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
    with transaction.atomic():
        created = api_key_create(name=name, owner=owner, scopes=scopes)
        agent = Agent.objects.create(
            name=name, owner=owner, api_key=created.api_key, is_active=is_active
        )
    logger.info(
        "[Agents] agent_created name=%s prefix=%s scopes=%s",
        name,
        created.api_key.prefix,
        ",".join(created.api_key.scopes),
    )
    return CreatedAgent(agent=agent, api_key=created.key)


def agent_rotate_key(*, agent: Agent) -> str:
    """Replace the agent's key; the old key stops working at once."""
    with transaction.atomic():
        rotated = api_key_rotate(api_key=agent.api_key)
        Agent.objects.filter(pk=agent.pk).update(api_key=rotated.api_key)
    agent.api_key = rotated.api_key
    logger.info(
        "[Agents] key_rotated name=%s prefix=%s", agent.name, rotated.api_key.prefix
    )
    return rotated.key


def agent_for_key(api_key: ApiKey) -> Agent | None:
    """The agent whose key this is (registered with ``accounts.holders``,
    loaded with the key): None when no agent holds it, ``KeyRefused`` when
    its agent is inactive. Touches ``last_seen_at`` at most once a minute: a
    write per request would serialise ingest."""
    try:
        agent: Agent = api_key.agent  # type: ignore[attr-defined]
    except Agent.DoesNotExist:
        return None
    if not agent.is_active:
        raise KeyRefused(agent.name)
    if agent.owner_id == api_key.owner_id:
        agent.owner = api_key.owner
    now = timezone.now()
    if agent.last_seen_at is None or (now - agent.last_seen_at).total_seconds() > 60:
        Agent.objects.filter(pk=agent.pk).update(last_seen_at=now)
    return agent
