"""The keep-alive observation loop (seed 000 KA-*).

It observes: builds a factual frame (I-1), lets the model think, and
publishes the thought non-actionable unless the model itself emitted a goal
that passed extraction and grounding (KA-A2). It never creates tasks and never
sets convertEligible (KA-A8; an import-linter contract keeps planning code
out of this module). Time comes in as ``now`` so tests drive it with a clock.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import zlib
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from stream.core.adapters import ModelAdapter
from stream.core.frames import facts_from_wire
from stream.core.keepalive import (
    KeepAlivePolicy,
    bypass_reason,
    decide_tick,
    detect_deltas,
    refresh_allowed,
)
from stream.core.pipeline import run_pipeline
from stream.core.types import EpisodicMemory, Memory, PromptProfile
from stream.models import Agent, KeepAliveState, StreamEvent, Thought
from stream.services.adapters import model_adapter, sampler_profile
from stream.services.thoughts import (
    AWARENESS_TYPE,
    ThoughtInput,
    latest_facts,
    thoughts_publish,
)

logger = logging.getLogger(__name__)

KEEPALIVE_TYPE = "keepalive"


def keepalive_policy() -> KeepAlivePolicy:
    return KeepAlivePolicy(
        min_interval_ms=settings.KEEPALIVE_MIN_INTERVAL_MS,
        hunger_drop_threshold=settings.KEEPALIVE_HUNGER_DROP,
        health_drop_threshold=settings.KEEPALIVE_HEALTH_DROP,
        max_refreshes_per_minute=settings.KEEPALIVE_MAX_REFRESH_PER_MIN,
        perception_max_age_ms=settings.KEEPALIVE_PERCEPTION_MAX_AGE_MS,
    )


@dataclass(frozen=True, slots=True)
class TickOutcome:
    ran: bool
    reason: str
    thought: Thought | None = None
    refresh_requested: bool = False


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _request_refresh(
    agent: Agent, state: KeepAliveState, now: datetime, policy: KeepAlivePolicy
) -> bool:
    """Ask the agent's perception pipeline for a fresh percept (KA-A6)."""
    now_ms = _ms(now)
    recent = tuple(int(t) for t in state.refresh_times_ms)
    if not refresh_allowed(now_ms=now_ms, recent_refresh_ms=recent, policy=policy):
        return False
    StreamEvent.objects.create(
        agent=agent,
        type=AWARENESS_TYPE,
        metadata={"source": "keepalive", "request": "perception_refresh"},
        created_at=now,
    )
    state.refresh_times_ms = [t for t in recent if now_ms - t < 60_000] + [now_ms]
    logger.info(
        "[KeepAlive] request_perception_refresh type=environmental_awareness "
        "source=keepalive",
        extra={"agent": agent.name},
    )
    return True


def _memory_slice(agent: Agent, size: int) -> Memory | None:
    if size == 0:
        return None
    rows = (
        Thought.objects.filter(agent=agent, broadcast=True)
        .exclude(type=AWARENESS_TYPE)
        .order_by("-created_at", "-pk")
        .values_list("created_at", "content")[:size]
    )
    episodic = tuple(
        EpisodicMemory(timestamp_ms=_ms(created), text=content)
        for created, content in reversed(rows)
    )
    return Memory(episodic=episodic, semantic=None) if episodic else None


def keepalive_tick(
    *,
    agent_id: int,
    now: datetime | None = None,
    adapter: ModelAdapter | None = None,
    poked: bool = False,
) -> TickOutcome:
    """One keep-alive tick for one agent; safe to run concurrently and twice.

    The state row is locked for the tick, so two workers never introspect the
    same agent at once; the second sees the fresh cooldown and skips.
    """
    now = now or timezone.now()
    policy = keepalive_policy()
    with transaction.atomic():
        agent = Agent.objects.get(pk=agent_id)
        state, _ = KeepAliveState.objects.get_or_create(agent=agent)
        state = KeepAliveState.objects.select_for_update().get(pk=state.pk)
        snapshot, facts = latest_facts(agent=agent)
        if snapshot is None or facts is None:
            requested = _request_refresh(agent, state, now, policy)
            state.save(update_fields=["refresh_times_ms"])
            return TickOutcome(False, "no_perception", refresh_requested=requested)

        previous = (
            facts_from_wire(state.last_frame_snapshot.facts)
            if state.last_frame_snapshot is not None
            else None
        )
        deltas = detect_deltas(previous, facts)
        poked = poked or state.poke_pending
        bypass = bypass_reason(deltas, policy=policy, poked=poked)
        last_ms = (
            _ms(state.last_introspection_at) if state.last_introspection_at else None
        )
        decision = decide_tick(
            now_ms=_ms(now), last_introspection_ms=last_ms, bypass=bypass, policy=policy
        )
        if not decision.run:
            logger.info(
                "[KeepAlive] skip reason=cooldown remaining_ms=%s",
                decision.remaining_ms,
                extra={"agent": agent.name},
            )
            return TickOutcome(False, "cooldown")
        if decision.bypass is not None:
            logger.info(
                "[KeepAlive] bypass cooldown reason=%s",
                decision.bypass.value,
                extra={"agent": agent.name},
            )
        refreshed = False
        if _ms(now) - _ms(snapshot.received_at) > policy.perception_max_age_ms:
            refreshed = _request_refresh(agent, state, now, policy)

        frame_facts = dataclasses.replace(
            facts,
            deltas=deltas or None,
            memory=_memory_slice(agent, settings.KEEPALIVE_MEMORY_SLICE),
        )
        profile = PromptProfile(settings.KEEPALIVE_PROFILE)
        adapter = adapter or model_adapter(
            settings.KEEPALIVE_MODEL, script_path=settings.KEEPALIVE_SCRIPT
        )
        seed = zlib.crc32(f"{agent.pk}:{_ms(now)}".encode())
        result = run_pipeline(
            frame_facts,
            profile=profile,
            adapter=adapter,
            sampler=sampler_profile(settings.KEEPALIVE_SAMPLER),
            seed=seed,
            clock=time.perf_counter,
        )
        frame = result.frame
        logger.info(
            "[KeepAlive] introspection frame_kind=factual_only profile=%s facts=%s "
            "memories=%s deltas=%s",
            frame.profile.value,
            frame.fact_count,
            frame.memory_count,
            frame.delta_count,
            extra={"agent": agent.name},
        )
        (thought,) = thoughts_publish(
            agent=agent,
            items=[
                ThoughtInput(
                    content=result.generation.text,
                    type=KEEPALIVE_TYPE,
                    source="keepalive",
                    novelty="medium" if decision.bypass is None else "high",
                )
            ],
            now=now,
            facts=frame_facts,
        )
        logger.info(
            "[Cognition] keepalive_thought published id=%s convertEligible=%s "
            "processed=false",
            thought.pk,
            "true" if thought.convert_eligible else "false",
            extra={"agent": agent.name},
        )
        state.last_introspection_at = now
        state.last_frame_snapshot = snapshot
        state.poke_pending = False
        state.save()
    return TickOutcome(True, decision.bypass or "interval", thought, refreshed)


def keepalive_poke(*, agent: Agent) -> None:
    """An explicit eval poke (KA-A5): the next tick bypasses the cooldown."""
    from stream.tasks.keepalive import keepalive_tick as keepalive_tick_task

    with transaction.atomic():
        state, _ = KeepAliveState.objects.get_or_create(agent=agent)
        KeepAliveState.objects.filter(pk=state.pk).update(poke_pending=True)
        transaction.on_commit(lambda: keepalive_tick_task.delay(agent.pk))


def keepalive_tick_all() -> list[int]:
    """Agent ids due a tick (the beat task fans one task out per agent)."""
    if not settings.KEEPALIVE_ENABLED:
        return []
    return list(Agent.objects.filter(is_active=True).values_list("pk", flat=True))


def events_take(*, agent: Agent, now: datetime | None = None) -> list[StreamEvent]:
    """Undelivered events of the agent, marked delivered (at-most-once)."""
    now = now or timezone.now()
    with transaction.atomic():
        events = list(
            StreamEvent.objects.select_for_update()
            .filter(agent=agent, delivered_at__isnull=True)
            .order_by("created_at", "pk")[:100]
        )
        StreamEvent.objects.filter(pk__in=[e.pk for e in events]).update(
            delivered_at=now
        )
    return events
