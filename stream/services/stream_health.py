"""The stream of some agents at a glance (read only; the overview's tile)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q, QuerySet, Sum

from stream.models import AgencyCounters, Agent, Thought
from stream.services.counters import COUNTER_FIELDS, WIRE_NAMES


@dataclass(frozen=True, slots=True)
class StreamHealth:
    """The stream of some agents at a glance.

    ``actionable`` is the opt-in feed's size (unprocessed AND convertEligible,
    SC-B1); ``unprocessed`` the whole queue; ``counters`` the agency counters
    summed over the agents, under their wire names.
    """

    agents: int
    window_minutes: int
    thoughts_in_window: int
    actionable: int
    unprocessed: int
    counters: dict[str, int]

    @property
    def thoughts_per_min(self) -> float:
        return round(self.thoughts_in_window / self.window_minutes, 2)


def stream_health(
    *, agents: QuerySet[Agent], now: datetime, window: timedelta = timedelta(minutes=10)
) -> StreamHealth:
    """Thoughts per minute over ``window``, queue sizes and summed counters
    of ``agents``. Four queries whatever the number of agents or thoughts."""
    agent_pks = list(agents.values_list("pk", flat=True))
    recent = Thought.objects.filter(
        agent_id__in=agent_pks, created_at__gte=now - window
    ).count()
    queue = Thought.objects.filter(agent_id__in=agent_pks, processed=False).aggregate(
        unprocessed=Count("pk"), actionable=Count("pk", filter=Q(convert_eligible=True))
    )
    sums = AgencyCounters.objects.filter(agent_id__in=agent_pks).aggregate(
        **{name: Sum(name) for name in COUNTER_FIELDS}
    )
    return StreamHealth(
        agents=len(agent_pks),
        window_minutes=max(int(window.total_seconds() // 60), 1),
        thoughts_in_window=recent,
        actionable=queue["actionable"] or 0,
        unprocessed=queue["unprocessed"] or 0,
        counters={WIRE_NAMES[name]: int(sums[name] or 0) for name in COUNTER_FIELDS},
    )
