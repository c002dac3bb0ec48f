"""What a review queue reads of the stream: an agent the person may see,
and the ids of its thoughts in a time range. Reads only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stream.models import Agent, Thought
from stream.selectors import agent_list_visible


def agent_visible_named(*, user: Any, name: str) -> Agent | None:
    """The agent called ``name`` if ``user`` may see it (its owner, a
    member, or staff); None for any other name, as for one that is nobody."""
    if not isinstance(name, str) or not name.strip():
        return None
    return agent_list_visible(user=user).filter(name=name.strip()).first()


def thought_ids_in_range(
    *,
    agent: Agent,
    since: datetime | None,
    until: datetime | None,
    eligible: bool | None = None,
    limit: int,
) -> list[int]:
    """The ids of ``agent``'s thoughts created at or after ``since`` and
    before ``until`` (either None: open on that side), only the eligible
    (True) or only the others (False) when ``eligible`` says so, newest
    first, at most ``limit``."""
    found = Thought.objects.filter(agent=agent)
    if since is not None:
        found = found.filter(created_at__gte=since)
    if until is not None:
        found = found.filter(created_at__lt=until)
    if eligible is True:
        found = found.filter(convert_eligible=True)
    elif eligible is False:
        found = found.exclude(convert_eligible=True)
    ordered = found.order_by("-created_at", "-id").values_list("pk", flat=True)
    return list(ordered[: max(0, limit)])
