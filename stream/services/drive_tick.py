"""Drive tick (opt-in, the agency contract §3): an idle agent's own goal, as a thought.

The gates, priority list and thought shape are ``stream.core.drive_tick``'s;
this module reads the agent's state and latest percept, takes the agent's
planning state lock around the goalKey check, stores the thought and logs
``[DriveTick] fired|skip``. The thought goes through the planning poll like
any actionable thought. Nothing here reads ``DRIVE_TICK_ENABLED``: callers
decide whether drive ticks run at all.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from core.times import epoch_ms, epoch_ms_or_none
from stream.core.dedup import content_hash
from stream.core.drive_tick import (
    DRIVE_TICK_INTERVAL_MS,
    DRIVE_TICK_SYSTEM,
    DriveInputs,
    decide_drive_tick,
    drive_tick_thought,
)
from stream.core.frames import facts_from_wire
from stream.core.planning import TaskStatus
from stream.core.thought_types import DRIVE_TICK_TYPE
from stream.core.types import TimeOfDay
from stream.models import Agent, PlanningState, Task, Thought, WorldSnapshot
from stream.services.counters import counters_add_stored
from stream.services.planning_task_store import open_tasks, planning_state_lock
from stream.services.retention import stream_cap_enforce

logger = logging.getLogger(__name__)

SHELTER_GOAL_KEY = "build:basic_shelter"


@dataclass(frozen=True, slots=True)
class DriveTickOutcome:
    fired: bool
    reason: str
    thought: Thought | None = None
    goal_key: str | None = None
    due: bool = False  # the 180 s timer had elapsed (whatever the other gates)


def _has_shelter(agent: Agent) -> bool:
    return Task.objects.filter(
        agent=agent, goal_key=SHELTER_GOAL_KEY, status=TaskStatus.COMPLETED
    ).exists()


def drive_tick(
    *,
    agent: Agent,
    now: datetime | None = None,
    game_mode: str | None,
    health: float,
    food: float,
    hostiles: int,
    inventory: Mapping[str, int],
    night_approaching: bool = False,
    has_shelter: bool | None = None,
) -> DriveTickOutcome:
    """One drive-tick evaluation (the agency contract §3), with explicit inputs.

    Never reads ``DRIVE_TICK_ENABLED``: callers decide whether drive ticks
    run at all (the beat path only when enabled; the soak always). When the
    gates pass and no open task suppresses the chosen goal, it stores a
    drive-tick thought in §3.4's shape (convertEligible true by construction:
    a goal, its key and a ``drive_tick`` grounding pass), increments
    ``drive_ticks`` and restarts the 180 s timer; the next planning poll
    converts it like any actionable thought. ``has_shelter`` defaults to
    "a ``build:basic_shelter`` task completed".
    """
    now = now or timezone.now()
    shelter = _has_shelter(agent) if has_shelter is None else has_shelter
    with transaction.atomic():
        state = planning_state_lock(agent=agent)
        last_ms = epoch_ms_or_none(state.last_drive_tick_at)
        due = last_ms is None or epoch_ms(now) - last_ms >= DRIVE_TICK_INTERVAL_MS
        decision = decide_drive_tick(
            DriveInputs(
                health=health,
                food=food,
                hostiles=hostiles,
                game_mode=game_mode,
                now_ms=epoch_ms(now),
                last_tick_ms=last_ms,
            ),
            inventory=inventory,
            night_approaching=night_approaching,
            has_shelter=shelter,
            open_tasks=open_tasks(agent=agent),
        )
        if not decision.fire or decision.goal is None or decision.goal_key is None:
            thought = None
        else:
            shape = drive_tick_thought(decision.goal, goal_key=decision.goal_key)
            thought = Thought.objects.create(
                agent=agent,
                type=DRIVE_TICK_TYPE,
                content=shape.content,
                content_hash=content_hash(shape.content),
                **shape.decision.columns(),
                novelty=Thought.Novelty.HIGH,
                source=DRIVE_TICK_SYSTEM,
                metadata=shape.metadata,
                created_at=now,
            )
            held = counters_add_stored(agent=agent, stored=1, drive_ticks=1)
            PlanningState.objects.filter(pk=state.pk).update(last_drive_tick_at=now)
    if thought is None:
        log = logger.debug if decision.reason == "interval" else logger.info
        log(
            "[DriveTick] skip reason=%s goalKey=%s",
            decision.reason,
            decision.goal_key,
            extra={"agent": agent.name},
        )
        return DriveTickOutcome(False, decision.reason, None, decision.goal_key, due)
    logger.info(
        "[DriveTick] fired id=%s goalKey=%s reason=%s",
        thought.pk,
        decision.goal_key,
        decision.reason,
        extra={"agent": agent.name},
    )
    logger.info(
        "[Cognition] thought_published processed=false",
        extra={"id": thought.pk, "agent": agent.name},
    )
    stream_cap_enforce(agent=agent, now=now, held=held)
    return DriveTickOutcome(True, decision.reason, thought, decision.goal_key, due)


def drive_tick_from_latest(
    *, agent: Agent, game_mode: str | None, now: datetime | None = None
) -> DriveTickOutcome:
    """A drive tick whose inputs come from the agent's latest percept.

    food is the percept's hunger bar; hostiles the count of nearby entities
    marked hostile; night approaches at sunset and night. The percept's
    ``bot.gameMode`` wins; ``game_mode`` (the global setting) applies only
    to a percept that does not state one.
    """
    snapshot = (
        WorldSnapshot.objects.filter(agent=agent)
        .order_by("-received_at", "-pk")
        .first()
    )
    if snapshot is None:
        logger.info("[DriveTick] skip reason=no_percept", extra={"agent": agent.name})
        return DriveTickOutcome(False, "no_percept")
    facts = facts_from_wire(snapshot.facts)
    raw_bot = snapshot.facts.get("facts", {}).get("bot", {})
    mode = raw_bot.get("gameMode") if isinstance(raw_bot, dict) else None
    inventory: dict[str, int] = {}
    for item in facts.bot.inventory:
        inventory[item.item] = inventory.get(item.item, 0) + item.count
    return drive_tick(
        agent=agent,
        now=now,
        game_mode=mode if isinstance(mode, str) else game_mode,
        health=facts.bot.health,
        food=facts.bot.hunger,
        hostiles=sum(e.count for e in facts.world.nearby_entities if e.hostile),
        inventory=inventory,
        night_approaching=facts.bot.time_of_day in (TimeOfDay.SUNSET, TimeOfDay.NIGHT),
    )
