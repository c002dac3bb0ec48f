"""The keep-alive observation loop (the stream contract KA-*).

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

from core.errors import ServiceUnavailable
from core.times import epoch_ms
from evalsite.dispatch import enqueue
from evalsite.services import broker_send
from stream.core.adapters import ModelAdapter, ModelCallFailed
from stream.core.baseline import BaselineAdapter
from stream.core.frames import facts_from_wire
from stream.core.keepalive import (
    BypassReason,
    KeepAlivePolicy,
    bypass_reason,
    decide_tick,
    detect_deltas,
    poke_wait_ms,
    refresh_allowed,
)
from stream.core.pipeline import run_pipeline
from stream.core.prompt_guard import PromptViolation, goal_text_violations
from stream.core.thought_types import DRIVE_TICK_TYPE, KEEPALIVE_TYPE
from stream.core.types import EpisodicMemory, Memory, PromptProfile, SituationFacts
from stream.models import Agent, KeepAliveState, StreamEvent, Thought, WorldSnapshot
from stream.selectors import latest_facts
from stream.services.adapters import model_adapter, sampler_profile
from stream.services.keepalive_spans import keepalive_call_record
from stream.services.thoughts import AWARENESS_TYPE, ThoughtInput, thoughts_publish

logger = logging.getLogger(__name__)


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


def _request_refresh(
    agent: Agent, state: KeepAliveState, now: datetime, policy: KeepAlivePolicy
) -> bool:
    """Ask the agent's perception pipeline for a fresh percept (KA-A6)."""
    now_ms = epoch_ms(now)
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
    """The agent's own recent thoughts, minus anything carrying goal text.

    Drive-tick thoughts are the service's goals, not the agent's memories
    (I-1); any other row whose text still reads as a goal is left out too,
    so a frame never presents a goal as a fact.
    """
    if size == 0:
        return None
    rows = (
        Thought.objects.filter(agent=agent, broadcast=True)
        .exclude(type__in=(AWARENESS_TYPE, DRIVE_TICK_TYPE))
        .order_by("-created_at", "-pk")
        .values_list("created_at", "content")[: size * 2]
    )
    kept = [(c, text) for c, text in rows if not goal_text_violations(text)][:size]
    episodic = tuple(
        EpisodicMemory(timestamp_ms=epoch_ms(created), text=content)
        for created, content in reversed(kept)
    )
    return Memory(episodic=episodic, semantic=None) if episodic else None


@dataclass(frozen=True, slots=True)
class _Claim:
    """What the first transaction decided and claimed for the model call."""

    agent: Agent
    state_pk: int
    snapshot: WorldSnapshot
    facts: SituationFacts
    bypass: BypassReason | None
    previous_at: datetime | None
    poke_was_pending: bool
    refreshed: bool


def _claim(
    agent_id: int, now: datetime, policy: KeepAlivePolicy, poked: bool
) -> _Claim | TickOutcome:
    """Lock the state, decide, and claim the introspection slot.

    The claim (``last_introspection_at = now``) is committed before the
    model is called, so a concurrent tick sees the cooldown and skips while
    no lock is held during the call.
    """
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
        poke_was_pending = state.poke_pending
        bypass = bypass_reason(
            deltas, policy=policy, poked=poked or poke_was_pending, previous=previous
        )
        in_flight = state.introspecting_since
        if (
            in_flight is not None
            and epoch_ms(now) - epoch_ms(in_flight) < _in_flight_max_ms()
        ):
            logger.info(
                "[KeepAlive] skip reason=in_flight since_ms=%s",
                epoch_ms(now) - epoch_ms(in_flight),
                extra={"agent": agent.name, "periodic": True},
            )
            return TickOutcome(False, "in_flight")
        previous_at = state.last_introspection_at
        last_ms = epoch_ms(previous_at) if previous_at else None
        decision = decide_tick(
            now_ms=epoch_ms(now),
            last_introspection_ms=last_ms,
            bypass=bypass,
            policy=policy,
        )
        if not decision.run:
            logger.info(
                "[KeepAlive] skip reason=cooldown remaining_ms=%s",
                decision.remaining_ms,
                extra={"agent": agent.name, "periodic": True},
            )
            return TickOutcome(False, "cooldown")
        if decision.bypass is not None:
            logger.info(
                "[KeepAlive] bypass cooldown reason=%s",
                decision.bypass.value,
                extra={"agent": agent.name},
            )
        refreshed = False
        if (
            epoch_ms(now) - epoch_ms(snapshot.received_at)
            > policy.perception_max_age_ms
        ):
            refreshed = _request_refresh(agent, state, now, policy)
        frame_facts = dataclasses.replace(
            facts,
            deltas=deltas or None,
            memory=_memory_slice(agent, settings.KEEPALIVE_MEMORY_SLICE),
        )
        state.last_introspection_at = now
        state.introspecting_since = now
        state.poke_pending = False
        state.save(
            update_fields=[
                "last_introspection_at",
                "introspecting_since",
                "poke_pending",
                "refresh_times_ms",
            ]
        )
    return _Claim(
        agent,
        state.pk,
        snapshot,
        frame_facts,
        decision.bypass,
        previous_at,
        poke_was_pending,
        refreshed,
    )


def _in_flight_max_ms() -> int:
    """How long an in-flight claim holds off other ticks: the longest a model
    call can take (every HTTP attempt timing out) plus a minute, after which
    a crashed worker's claim is taken over."""
    attempts = settings.OPENAI_MAX_RETRIES + 1
    return (settings.OPENAI_TIMEOUT_S * attempts + 60) * 1000


def _release(claim: _Claim, now: datetime) -> None:
    """Give the slot back after a failed model call (only if still ours)."""
    KeepAliveState.objects.filter(pk=claim.state_pk, last_introspection_at=now).update(
        last_introspection_at=claim.previous_at,
        introspecting_since=None,
        poke_pending=claim.poke_was_pending,
    )


def keepalive_observe_only(adapter: ModelAdapter) -> bool:
    """True when no model is configured: the built-in baseline only narrates.

    The baseline is a rule table; its goal tags are recorded but never make
    a keep-alive thought actionable (I-3: tasks come only from a model's own
    intent), exactly as drive ticks run only when enabled.
    """
    return isinstance(adapter, BaselineAdapter)


def keepalive_tick(
    *,
    agent_id: int,
    now: datetime | None = None,
    adapter: ModelAdapter | None = None,
    poked: bool = False,
) -> TickOutcome:
    """One keep-alive tick for one agent; safe to run concurrently and twice.

    Three steps, the model call outside any transaction: (1) lock the state,
    decide and claim the slot; (2) render the frame, check it carries no
    goal text and ask the model; (3) publish the thought and record the
    frame's snapshot. A failed or refused step 2 gives the slot back. The
    model call, failed or not, is then stored as a span
    (``stream.services.keepalive_spans``), outside any transaction.
    """
    now = now or timezone.now()
    policy = keepalive_policy()
    claim = _claim(agent_id, now, policy, poked)
    if isinstance(claim, TickOutcome):
        return claim
    agent = claim.agent
    profile = PromptProfile(settings.KEEPALIVE_PROFILE)
    seed = zlib.crc32(f"{agent.pk}:{epoch_ms(now)}".encode())
    try:
        adapter = adapter or model_adapter(
            settings.KEEPALIVE_MODEL, script_path=settings.KEEPALIVE_SCRIPT
        )
        result = run_pipeline(
            claim.facts,
            profile=profile,
            adapter=adapter,
            sampler=sampler_profile(settings.KEEPALIVE_SAMPLER),
            seed=seed,
            clock=time.perf_counter,
        )
    except PromptViolation as refused:
        _release(claim, now)
        logger.warning(
            "[KeepAlive] skip reason=frame_violation violations=%s",
            ",".join(refused.details.get("violations", [])),
            extra={"agent": agent.name},
        )
        return TickOutcome(False, "frame_violation")
    except ModelCallFailed as failed:
        _release(claim, now)
        keepalive_call_record(agent_id=agent.pk, now=now, call=failed.call)
        raise
    except BaseException:
        _release(claim, now)
        raise
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
    with transaction.atomic():
        (thought,) = thoughts_publish(
            agent=agent,
            items=[
                ThoughtInput(
                    content=result.generation.text,
                    type=KEEPALIVE_TYPE,
                    source="keepalive",
                    novelty="medium" if claim.bypass is None else "high",
                    observe_only=keepalive_observe_only(adapter),
                )
            ],
            now=now,
            facts=claim.facts,
        )
        KeepAliveState.objects.filter(pk=claim.state_pk).update(
            last_frame_snapshot=claim.snapshot, introspecting_since=None
        )
    logger.info(
        "[Cognition] keepalive_thought published id=%s convertEligible=%s "
        "processed=false",
        thought.pk,
        "true" if thought.convert_eligible else "false",
        extra={"agent": agent.name},
    )
    keepalive_call_record(
        agent_id=agent.pk,
        now=now,
        call=result.generation.call,
        prompt=result.prompt,
        completion=result.generation.text,
        thought_id=thought.pk,
    )
    return TickOutcome(True, claim.bypass or "interval", thought, claim.refreshed)


@dataclass(frozen=True, slots=True)
class PokeOutcome:
    accepted: bool
    retry_after_ms: int = 0


def keepalive_poke(*, agent: Agent, now: datetime | None = None) -> PokeOutcome:
    """An explicit eval poke (KA-A5): the next tick bypasses the cooldown.

    At most ``KEEPALIVE_MAX_POKES_PER_MIN`` pokes per agent in any 60 s; a
    poke over the limit changes nothing and says how long to wait.
    """
    now = now or timezone.now()
    now_ms = epoch_ms(now)
    with transaction.atomic():
        state, _ = KeepAliveState.objects.get_or_create(agent=agent)
        state = KeepAliveState.objects.select_for_update().get(pk=state.pk)
        recent = tuple(int(t) for t in state.poke_times_ms)
        wait_ms = poke_wait_ms(
            now_ms=now_ms,
            recent_poke_ms=recent,
            max_per_minute=settings.KEEPALIVE_MAX_POKES_PER_MIN,
        )
        if wait_ms:
            logger.info(
                "[KeepAlive] poke refused reason=rate_limit retry_after_ms=%s",
                wait_ms,
                extra={"agent": agent.name},
            )
            return PokeOutcome(False, wait_ms)
        state.poke_times_ms = [t for t in recent if now_ms - t < 60_000] + [now_ms]
        state.poke_pending = True
        state.save(update_fields=["poke_times_ms", "poke_pending"])
        transaction.on_commit(lambda: _send_tick(agent))
    return PokeOutcome(True)


def _send_tick(agent: Agent) -> None:
    """Send the poked tick now; with the broker down the poke stays pending
    and the beat's next tick honours it, so the poke still succeeds."""
    try:
        broker_send(
            lambda: enqueue("stream.keepalive_tick", agent.pk), what="keepalive_tick"
        )
    except ServiceUnavailable:
        logger.warning(
            "[KeepAlive] poke tick_deferred reason=broker_unavailable",
            extra={"agent": agent.name},
        )


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
