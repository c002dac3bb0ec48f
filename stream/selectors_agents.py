"""Reads of the agents people manage in the browser and of their keys."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from accounts.models import ApiKey
from stream.models import Agent
from stream.selectors import agent_list_visible


def agent_may_manage(*, user: Any, agent: Agent) -> bool:
    """Staff manage every agent; anyone else only the agents they own."""
    return bool(getattr(user, "is_staff", False)) or agent.owner_id == user.pk


def agents_managed(*, user: Any) -> QuerySet[Agent]:
    """The agents ``user`` manages (staff: all; else their own), with how
    many of their keys still work (neither revoked nor expired); eval runs'
    own agents are left out."""
    now = timezone.now()
    qs = Agent.objects.select_related("owner").exclude(name__startswith="eval-")
    if not getattr(user, "is_staff", False):
        qs = qs.filter(owner=user)
    working = Q(keys__api_key__revoked_at__isnull=True) & (
        Q(keys__api_key__expires_at__isnull=True) | Q(keys__api_key__expires_at__gt=now)
    )
    return qs.annotate(working_keys=Count("keys", filter=working)).order_by("name")


def agent_for_page(*, user: Any, name: str) -> tuple[Agent | None, bool]:
    """The agent named ``name`` if ``user`` may see it (None otherwise), and
    whether they may manage it."""
    agent = agent_list_visible(user=user).filter(name=name).first()
    if agent is None:
        return None, False
    return agent, agent_may_manage(user=user, agent=agent)


@dataclass(frozen=True, slots=True)
class KeyRow:
    """One of an agent's keys as its page lists it."""

    api_key: ApiKey
    state: str  # "active" | "revoked" | "expired"
    is_first: bool


def key_state(api_key: ApiKey, *, now: datetime) -> str:
    if api_key.revoked_at is not None:
        return "revoked"
    if api_key.expires_at is not None and api_key.expires_at <= now:
        return "expired"
    return "active"


def agent_key_rows(*, agent: Agent) -> list[KeyRow]:
    """Every key the agent holds, working ones first, newest first."""
    now = timezone.now()
    keys = ApiKey.objects.filter(agent_key__agent=agent).order_by("-created_at", "-pk")
    rows = [
        KeyRow(
            api_key=k, state=key_state(k, now=now), is_first=k.pk == agent.api_key_id
        )
        for k in keys
    ]
    return sorted(rows, key=lambda row: row.state != "active")


def agent_key_get(*, agent: Agent, pk: int) -> ApiKey | None:
    """The agent's key ``pk``; None when it is not one of the agent's."""
    return ApiKey.objects.filter(agent_key__agent=agent, pk=pk).first()
