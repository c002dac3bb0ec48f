"""Situation frames: the factual text a model sees, and its wire format.

Decides what the model is told and in which order. Invariants (I-1, KA-A1,
EV-C3):

- Factual only: every line states a measured fact, a recorded change or a
  remembered text; this module writes no proposal, candidate list or
  directive, and a goal-tag opener copied from data is neutralised, so a
  frame never carries a tag.
- Same frame, same text as the reference renderer (``renderSituationFrame``
  of the project the contract comes from), and the same fact, memory and
  change counts.
- A prompt profile changes only composition (fact budget, memory slice,
  whether recent changes are shown); rendering policy is the same for all.
- Same facts and profile give byte-identical text and the same digest
  (sha256 of the text). Never reads the clock.
- ``facts_to_wire(facts_from_wire(doc)) == doc`` for every valid document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from core.caches import remember
from core.canonical import sha256_hex
from core.errors import SchemaInvalid
from core.schemas import load_validator, validate
from stream.core.js_text import js_json, js_number, js_round, js_string
from stream.core.types import (
    BotState,
    Delta,
    DeltaType,
    EpisodicMemory,
    InventoryItem,
    Memory,
    NearbyEntity,
    Position,
    PromptProfile,
    RenderedFrame,
    SemanticMemory,
    SituationFacts,
    ThreatLevel,
    TimeOfDay,
    WorldState,
)

FRAME_SCHEMA: Final = "frame.v1.schema.json"


@dataclass(frozen=True, slots=True)
class ProfileBudget:
    facts: int
    memories: int
    deltas: int


PROFILE_BUDGETS: Final[dict[PromptProfile, ProfileBudget]] = {
    PromptProfile.MINIMAL: ProfileBudget(facts=5, memories=0, deltas=0),
    PromptProfile.BALANCED: ProfileBudget(facts=10, memories=3, deltas=0),
    PromptProfile.RICH: ProfileBudget(facts=20, memories=8, deltas=5),
}

# The inventory line is worth at most this many facts, however long it is.
INVENTORY_MAX_FACTS: Final = 3

TIME_LABELS: Final[dict[TimeOfDay, str]] = {
    TimeOfDay.DAWN: "Dawn (early morning)",
    TimeOfDay.DAY: "Day (safe)",
    TimeOfDay.SUNSET: "Sunset (evening approaching)",
    TimeOfDay.NIGHT: "Night (hostiles active)",
    TimeOfDay.UNKNOWN: "Unknown",
}

# Changes shown with their value as text, and changes shown as JSON.
_PLAIN_DELTAS: Final[dict[DeltaType, str]] = {
    DeltaType.DAMAGE_TAKEN: "Took {} damage",
    DeltaType.HEALTH_CHANGE: "Health changed by {}",
    DeltaType.HUNGER_CHANGE: "Hunger changed by {}",
    DeltaType.THREAT_DELTA: "Threat level: {}",
    DeltaType.TIME_ADVANCED: "Time advanced to {}",
}
_JSON_DELTAS: Final[dict[DeltaType, str]] = {
    DeltaType.NEW_ENTITY: "New entity appeared",
    DeltaType.LOST_ENTITY: "Entity left",
    DeltaType.ITEM_GAINED: "Gained item",
    DeltaType.ITEM_LOST: "Lost item",
}
DAMAGE_PREFIX: Final = "Took "
DAMAGE_SUFFIX: Final = " damage"

SECTION_BOT: Final = "[Bot State]"
SECTION_WORLD: Final = "[World State]"
SECTION_CHANGES: Final = "[Recent Changes]"
SECTION_MEMORY: Final = "[Memory]"

# A goal-tag opener inside data: its "[" is written "(" (I-1).
_GOAL_OPENER: Final = re.compile(r"\[(?=goal:)", re.IGNORECASE | re.ASCII)


# --- wire --------------------------------------------------------------------


def facts_from_wire(doc: Any) -> SituationFacts:
    """Parse a frame document (``{"facts", "deltas"?, "memory"?}``).

    Validates against ``frame.v1.schema.json`` first (unknown properties are
    errors) and raises ``SchemaInvalid`` listing every problem, sorted by
    path. Pure; no defaults are invented for absent optional fields.
    """
    key = _frame_key(doc)
    parsed = _PARSED_FRAMES.get(key) if key is not None else None
    if parsed is not None:
        return parsed
    problems = validate(load_validator("stream.core", FRAME_SCHEMA), doc)
    if problems:
        raise SchemaInvalid("frame does not match frame.v1", problems=problems)
    parsed = facts_from_valid_wire(doc)
    if key is not None:
        remember(_PARSED_FRAMES, key, parsed, size=PARSED_FRAMES_CACHE_SIZE)
    return parsed


PARSED_FRAMES_CACHE_SIZE: Final = 256
# Valid documents already parsed, by their exact JSON text (key order, int vs
# float, NaN all kept apart): a stream re-reads its agent's latest snapshot on
# every publish, and validating it cost more than the rest of the read.
# Values are immutable, so sharing them is safe.
_PARSED_FRAMES: dict[str, SituationFacts] = {}


_SCALARS: Final = frozenset((str, int, float, bool, type(None)))


def _frame_key(doc: Any) -> str | None:
    """The JSON text of ``doc`` when it is made of plain JSON values only
    (exact types, string keys: then equal texts mean equal documents), else
    None (not cached)."""
    stack = [doc]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            if not all(type(key) is str for key in item):
                return None
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind not in _SCALARS:
            return None
    try:
        return json.dumps(doc, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


def facts_from_valid_wire(doc: Mapping[str, Any]) -> SituationFacts:
    """``facts_from_wire`` of a document already validated against
    ``frame.v1`` (a suite's frames are, once, when the suite is loaded).

    Skips the validation, which costs ~30x the parse; a document that was
    never validated may raise ``KeyError``/``ValueError`` instead of
    ``SchemaInvalid``, so the caller owns that guarantee.
    """
    facts = doc["facts"]
    bot = facts["bot"]
    world = facts["world"]
    position = bot["position"]
    threat = bot.get("threatLevel")
    memory_doc = doc.get("memory")
    memory = None
    if memory_doc is not None:
        episodic = memory_doc.get("episodic")
        semantic = memory_doc.get("semantic")
        memory = Memory(
            episodic=None
            if episodic is None
            else tuple(EpisodicMemory(m["timestampMs"], m["text"]) for m in episodic),
            semantic=None
            if semantic is None
            else tuple(SemanticMemory(m["key"], m["text"]) for m in semantic),
        )
    deltas = doc.get("deltas")
    return SituationFacts(
        bot=BotState(
            position=Position(position["x"], position["y"], position["z"]),
            health=bot["health"],
            hunger=bot["hunger"],
            inventory=tuple(
                InventoryItem(i["item"], i["count"]) for i in bot["inventorySummary"]
            ),
            time_of_day=TimeOfDay(bot["timeOfDay"]),
            threat_level=None if threat is None else ThreatLevel(threat),
        ),
        world=WorldState(
            biome=world["biome"],
            nearby_entities=tuple(
                NearbyEntity(e["kind"], e["count"], e["distanceMin"], e.get("hostile"))
                for e in world["nearbyEntities"]
            ),
            dimension=world.get("dimension"),
            weather=world.get("weather"),
        ),
        deltas=None
        if deltas is None
        else tuple(Delta(DeltaType(d["type"]), d["value"]) for d in deltas),
        memory=memory,
    )


def facts_to_wire(facts: SituationFacts) -> dict[str, Any]:
    """The wire document of ``facts``; absent optional fields stay absent."""
    bot = facts.bot
    world = facts.world
    bot_doc: dict[str, Any] = {
        "position": {"x": bot.position.x, "y": bot.position.y, "z": bot.position.z},
        "health": bot.health,
        "hunger": bot.hunger,
        "inventorySummary": [{"item": i.item, "count": i.count} for i in bot.inventory],
        "timeOfDay": bot.time_of_day.value,
    }
    if bot.threat_level is not None:
        bot_doc["threatLevel"] = bot.threat_level.value
    entities = []
    for entity in world.nearby_entities:
        entity_doc: dict[str, Any] = {
            "kind": entity.kind,
            "count": entity.count,
            "distanceMin": entity.distance_min,
        }
        if entity.hostile is not None:
            entity_doc["hostile"] = entity.hostile
        entities.append(entity_doc)
    world_doc: dict[str, Any] = {"biome": world.biome, "nearbyEntities": entities}
    if world.dimension is not None:
        world_doc["dimension"] = world.dimension
    if world.weather is not None:
        world_doc["weather"] = world.weather
    doc: dict[str, Any] = {"facts": {"bot": bot_doc, "world": world_doc}}
    if facts.deltas is not None:
        doc["deltas"] = [{"type": d.type.value, "value": d.value} for d in facts.deltas]
    if facts.memory is not None:
        memory_doc: dict[str, Any] = {}
        if facts.memory.episodic is not None:
            memory_doc["episodic"] = [
                {"timestampMs": m.timestamp_ms, "text": m.text}
                for m in facts.memory.episodic
            ]
        if facts.memory.semantic is not None:
            memory_doc["semantic"] = [
                {"key": m.key, "text": m.text} for m in facts.memory.semantic
            ]
        doc["memory"] = memory_doc
    return doc


# --- rendering -----------------------------------------------------------------


def format_number(value: float) -> str:
    """A number as the reference renderer shows it (``19.5``, ``20``, ``1e-7``)."""
    return js_number(value)


def _delta_line(delta: Delta) -> str:
    value = delta.value
    kind = delta.type
    if kind in _PLAIN_DELTAS:
        return _PLAIN_DELTAS[kind].format(js_string(value))
    return f"{_JSON_DELTAS.get(kind, 'Change')}: {js_json(value)}"


def _fact_lines(facts: SituationFacts, budget: int) -> tuple[list[str], list[str], int]:
    """Bot and world lines in priority order, and the facts they cost."""
    bot = facts.bot
    world = facts.world
    bot_lines = [
        f"Health: {js_number(bot.health)}/20",
        f"Hunger: {js_number(bot.hunger)}/20",
    ]
    used = 2
    if used < budget:
        position = bot.position
        x, y, z = (js_number(js_round(v)) for v in (position.x, position.y, position.z))
        bot_lines.append(f"Position: ({x}, {y}, {z})")
        used += 1
    if used < budget:
        bot_lines.append(f"Time: {TIME_LABELS[bot.time_of_day]}")
        used += 1
    if bot.threat_level not in (None, ThreatLevel.NONE) and used < budget:
        bot_lines.append(f"Threat Level: {bot.threat_level}")
        used += 1
    if bot.inventory and used < budget:
        shown = bot.inventory[: budget - used]
        listing = ", ".join(f"{i.item} x{js_number(i.count)}" for i in shown)
        bot_lines.append(f"Inventory: {listing}")
        used += min(len(shown), INVENTORY_MAX_FACTS)
    elif not bot.inventory and used < budget:
        bot_lines.append("Inventory: empty")
        used += 1
    world_lines: list[str] = []
    for label, value in (
        ("Biome", world.biome),
        ("Dimension", world.dimension),
        ("Weather", world.weather),
    ):
        if value and used < budget:
            world_lines.append(f"{label}: {value}")
            used += 1
    if world.nearby_entities and used < budget:
        hostiles = [e for e in world.nearby_entities if e.hostile]
        others = [e for e in world.nearby_entities if not e.hostile]
        for entity in (hostiles + others)[: budget - used]:
            distance = (
                f" ({js_number(js_round(entity.distance_min))}m)"
                if entity.distance_min
                else ""
            )
            hostile = " [hostile]" if entity.hostile else ""
            world_lines.append(
                f"Nearby: {js_number(entity.count)}x {entity.kind}{distance}{hostile}"
            )
            used += 1
    return bot_lines, world_lines, used


def _memory_lines(memory: Memory | None, budget: int) -> list[str]:
    """Episodic memories, then semantic ones, in document order, cut at ``budget``."""
    if memory is None or budget <= 0:
        return []
    lines = [f"[Recent] {m.text}" for m in memory.episodic or ()]
    lines += [f"[{m.key or 'Knowledge'}] {m.text}" for m in memory.semantic or ()]
    return lines[:budget]


def _delta_lines(deltas: tuple[Delta, ...] | None, budget: int) -> list[str]:
    """The first ``budget`` changes, in document order."""
    if not deltas or budget <= 0:
        return []
    return [_delta_line(delta) for delta in deltas[:budget]]


def render_frame(facts: SituationFacts, *, profile: PromptProfile) -> RenderedFrame:
    """Render ``facts`` as the situation frame of ``profile``.

    Sections ``[Bot State]``, ``[World State]``, ``[Recent Changes]``,
    ``[Memory]`` separated by one blank line; empty sections are left out.
    Health and hunger always; then, while the profile's fact budget lasts:
    position, time, threat level (when not none), inventory (as many items
    as the budget has room for, worth at most ``INVENTORY_MAX_FACTS``),
    biome, dimension, weather, one line per nearby entity (hostiles first).
    The text equals the reference renderer's for the same frame, except
    that a ``[GOAL:`` opener inside data is written ``(GOAL:``, so no frame
    ever carries a goal tag. Deterministic.
    """
    budget = PROFILE_BUDGETS[PromptProfile(profile)]
    bot_lines, world_lines, fact_count = _fact_lines(facts, budget.facts)
    delta_lines = _delta_lines(facts.deltas, budget.deltas)
    memory_lines = _memory_lines(facts.memory, budget.memories)
    sections = []
    for header, lines in (
        (SECTION_BOT, bot_lines),
        (SECTION_WORLD, world_lines),
        (SECTION_CHANGES, delta_lines),
        (SECTION_MEMORY, memory_lines),
    ):
        if lines:
            sections.append(header + "\n" + "\n".join(lines))
    text = "\n\n".join(sections)
    if "[" in text:
        text = _GOAL_OPENER.sub("(", text)
    return RenderedFrame(
        text=text,
        profile=PromptProfile(profile),
        fact_count=fact_count,
        memory_count=len(memory_lines),
        delta_count=len(delta_lines),
        digest=sha256_hex(text),
    )
