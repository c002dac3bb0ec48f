"""Reads the search index takes from the stream: thoughts in id order after
a watermark, and agents' names. Read-only."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from stream.models import Agent, Thought


@dataclass(frozen=True, slots=True)
class ThoughtText:
    pk: int
    agent_id: int
    type: str
    content: str
    convert_eligible: bool | None
    grounding_passed: bool | None
    eval_run_id: str
    created_at: datetime


def thoughts_after(after_id: int, limit: int) -> list[ThoughtText]:
    """Up to ``limit`` thoughts with an id above ``after_id``, in id order."""
    rows = (
        Thought.objects.filter(pk__gt=after_id)
        .order_by("pk")
        .values_list(
            "pk",
            "agent_id",
            "type",
            "content",
            "convert_eligible",
            "grounding_passed",
            "eval_run_id",
            "created_at",
        )[:limit]
    )
    return [ThoughtText(*row) for row in rows]


def oldest_thought_id() -> int | None:
    """The smallest thought id still stored (retention deletes the oldest)."""
    return Thought.objects.order_by("pk").values_list("pk", flat=True).first()


def agent_names(agent_ids: Iterable[int]) -> dict[int, str]:
    """The names of the agents with these ids."""
    return dict(Agent.objects.filter(pk__in=set(agent_ids)).values_list("pk", "name"))


def agent_id_named(name: str) -> int | None:
    """The id of the agent called ``name``; None when there is none."""
    return Agent.objects.filter(name=name).values_list("pk", flat=True).first()
