"""Keep-alive decisions: stimulus detection, cooldown, refresh circuit breaker.

The keep-alive loop observes; it never proposes goals (I-1) and never sets
``convertEligible`` (KA-A8). This module decides only *whether* and *why* an
introspection runs now, and which factual deltas separate two snapshots.
Pure: ``now`` (epoch milliseconds) and every threshold are passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from stream.core.types import Delta, DeltaType, SituationFacts, ThreatLevel

THREAT_ORDER = {
    None: 0,
    ThreatLevel.NONE: 0,
    ThreatLevel.LOW: 1,
    ThreatLevel.MEDIUM: 2,
    ThreatLevel.HIGH: 3,
    ThreatLevel.CRITICAL: 4,
}


class BypassReason(StrEnum):
    """The only stimuli that may bypass the cooldown (KA-A5).

    When several apply, the first in this order is reported; a health drop
    above its threshold is reported as such rather than as plain damage, and
    plain damage needs a hostile nearby (see ``bypass_reason``).
    """

    THREAT_DELTA = "threat_delta"
    DAMAGE = "damage"
    HUNGER_DROP = "hunger_drop"
    HEALTH_DROP = "health_drop"
    NOVEL_ENTITY = "novel_entity"
    EVAL_POKE = "eval_poke"


@dataclass(frozen=True, slots=True)
class KeepAlivePolicy:
    min_interval_ms: int = 120_000
    hunger_drop_threshold: float = 2.0
    health_drop_threshold: float = 4.0
    max_refreshes_per_minute: int = 2
    perception_max_age_ms: int = 60_000


@dataclass(frozen=True, slots=True)
class TickDecision:
    """Run an introspection now, or skip it with the remaining cooldown."""

    run: bool
    bypass: BypassReason | None
    remaining_ms: int


def _hostiles(facts: SituationFacts) -> int:
    return sum(e.count for e in facts.world.nearby_entities if e.hostile)


def _inventory(facts: SituationFacts) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in facts.bot.inventory:
        out[item.item] = out.get(item.item, 0) + item.count
    return out


def detect_deltas(
    previous: SituationFacts | None, current: SituationFacts
) -> tuple[Delta, ...]:
    """Factual changes from ``previous`` to ``current``, in a stable order.

    Values are short factual strings or signed numbers, never suggestions.
    """
    if previous is None:
        return ()
    deltas: list[Delta] = []
    prev_threat = THREAT_ORDER[previous.bot.threat_level]
    cur_threat = THREAT_ORDER[current.bot.threat_level]
    prev_hostiles, cur_hostiles = _hostiles(previous), _hostiles(current)
    if cur_threat > prev_threat or cur_hostiles > prev_hostiles:
        level = current.bot.threat_level or ThreatLevel.NONE
        deltas.append(
            Delta(
                DeltaType.THREAT_DELTA,
                f"threat {level.value}, hostiles {prev_hostiles}->{cur_hostiles}",
            )
        )
    health_change = round(current.bot.health - previous.bot.health, 2)
    if health_change < 0:
        deltas.append(Delta(DeltaType.DAMAGE_TAKEN, -health_change))
    if health_change:
        deltas.append(Delta(DeltaType.HEALTH_CHANGE, health_change))
    hunger_change = round(current.bot.hunger - previous.bot.hunger, 2)
    if hunger_change:
        deltas.append(Delta(DeltaType.HUNGER_CHANGE, hunger_change))
    prev_kinds = {e.kind for e in previous.world.nearby_entities}
    cur_kinds = {e.kind for e in current.world.nearby_entities}
    deltas.extend(
        Delta(DeltaType.NEW_ENTITY, k) for k in sorted(cur_kinds - prev_kinds)
    )
    deltas.extend(
        Delta(DeltaType.LOST_ENTITY, k) for k in sorted(prev_kinds - cur_kinds)
    )
    if previous.bot.time_of_day != current.bot.time_of_day:
        deltas.append(Delta(DeltaType.TIME_ADVANCED, current.bot.time_of_day.value))
    prev_inv, cur_inv = _inventory(previous), _inventory(current)
    for item in sorted(prev_inv.keys() | cur_inv.keys()):
        diff = cur_inv.get(item, 0) - prev_inv.get(item, 0)
        if diff > 0:
            deltas.append(Delta(DeltaType.ITEM_GAINED, f"{item} x{diff}"))
        elif diff < 0:
            deltas.append(Delta(DeltaType.ITEM_LOST, f"{item} x{-diff}"))
    return tuple(deltas)


def bypass_reason(
    deltas: tuple[Delta, ...],
    *,
    policy: KeepAlivePolicy,
    poked: bool,
    previous: SituationFacts | None = None,
) -> BypassReason | None:
    """The stimulus that justifies skipping the cooldown, if any (KA-A5).

    A health loss above ``health_drop_threshold`` is ``health_drop``. A
    smaller loss is ``damage`` only when something could have dealt it: a
    hostile was already nearby in ``previous`` (the attacker's arrival is a
    threat delta of its own). Any other small loss (hunger, a fall) does not
    bypass, so the health threshold gates what it says it gates.
    """
    types = {d.type for d in deltas}
    if DeltaType.THREAT_DELTA in types:
        return BypassReason.THREAT_DELTA
    for delta in deltas:
        if (
            delta.type is DeltaType.HEALTH_CHANGE
            and isinstance(delta.value, (int, float))
            and -delta.value > policy.health_drop_threshold
        ):
            return BypassReason.HEALTH_DROP
    if DeltaType.DAMAGE_TAKEN in types and previous is not None and _hostiles(previous):
        return BypassReason.DAMAGE
    for delta in deltas:
        if (
            delta.type is DeltaType.HUNGER_CHANGE
            and isinstance(delta.value, (int, float))
            and -delta.value > policy.hunger_drop_threshold
        ):
            return BypassReason.HUNGER_DROP
    if DeltaType.NEW_ENTITY in types:
        return BypassReason.NOVEL_ENTITY
    if poked:
        return BypassReason.EVAL_POKE
    return None


def decide_tick(
    *,
    now_ms: int,
    last_introspection_ms: int | None,
    bypass: BypassReason | None,
    policy: KeepAlivePolicy,
) -> TickDecision:
    """Run when the cooldown has passed or a stimulus bypasses it (KA-A4/A5)."""
    if last_introspection_ms is None:
        return TickDecision(run=True, bypass=None, remaining_ms=0)
    remaining = last_introspection_ms + policy.min_interval_ms - now_ms
    if remaining <= 0:
        return TickDecision(run=True, bypass=None, remaining_ms=0)
    if bypass is not None:
        return TickDecision(run=True, bypass=bypass, remaining_ms=remaining)
    return TickDecision(run=False, bypass=None, remaining_ms=remaining)


def refresh_allowed(
    *, now_ms: int, recent_refresh_ms: tuple[int, ...], policy: KeepAlivePolicy
) -> bool:
    """Circuit breaker: at most ``max_refreshes_per_minute`` in any 60 s window."""
    window = [t for t in recent_refresh_ms if now_ms - t < 60_000]
    return len(window) < policy.max_refreshes_per_minute


def poke_wait_ms(
    *, now_ms: int, recent_poke_ms: tuple[int, ...], max_per_minute: int
) -> int:
    """0 when one more eval poke fits in the last 60 s, else the ms to wait.

    Pokes bypass the cooldown (KA-A5), so an unlimited poke would turn the
    keep-alive back into compulsive narration (KA-A4).
    """
    window = sorted(t for t in recent_poke_ms if now_ms - t < 60_000)
    if len(window) < max_per_minute:
        return 0
    if not window:
        return 60_000
    return max(window[len(window) - max_per_minute] + 60_000 - now_ms, 1)
