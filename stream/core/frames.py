"""Situation frames: the factual text a model sees, and its wire format.

Decides what the model is told and in which order. Invariants (I-1, KA-A1,
EV-C3):

- Factual only: every line states a measured fact, a recorded change or a
  remembered text; this module writes no proposal, candidate list or
  directive, and free text copied from memories or changes has its square
  brackets neutralised so it can never carry a tag.
- A prompt profile changes only composition (fact budget, memory slice,
  whether recent changes are shown); rendering policy is the same for all.
- Same facts and profile give byte-identical text and the same digest
  (sha256 of the text). Never reads the clock.
- ``facts_to_wire(facts_from_wire(doc)) == doc`` for every valid document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from core.canonical import sha256_hex
from core.errors import SchemaInvalid
from core.schemas import load_validator, validate
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

DELTA_LABELS: Final[dict[DeltaType, str]] = {
    DeltaType.THREAT_DELTA: "Threat changed",
    DeltaType.DAMAGE_TAKEN: "Damage taken",
    DeltaType.HUNGER_CHANGE: "Hunger changed",
    DeltaType.HEALTH_CHANGE: "Health changed",
    DeltaType.NEW_ENTITY: "Newly nearby",
    DeltaType.LOST_ENTITY: "No longer nearby",
    DeltaType.TIME_ADVANCED: "Time passed",
    DeltaType.ITEM_GAINED: "Item gained",
    DeltaType.ITEM_LOST: "Item lost",
    DeltaType.OTHER: "Other change",
}

SECTION_BOT: Final = "[Bot State]"
SECTION_WORLD: Final = "[World State]"
SECTION_CHANGES: Final = "[Recent Changes]"
SECTION_MEMORY: Final = "[Memory]"

_BRACKETS: Final = str.maketrans({"[": "(", "]": ")"})


# --- wire --------------------------------------------------------------------


def facts_from_wire(doc: Any) -> SituationFacts:
    """Parse a frame document (``{"facts", "deltas"?, "memory"?}``).

    Validates against ``frame.v1.schema.json`` first (unknown properties are
    errors) and raises ``SchemaInvalid`` listing every problem, sorted by
    path. Pure; no defaults are invented for absent optional fields.
    """
    problems = validate(load_validator("stream.core", FRAME_SCHEMA), doc)
    if problems:
        raise SchemaInvalid("frame does not match frame.v1", problems=problems)
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
    """Integers as integers, other numbers with one decimal (``19.5``)."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer():
        return str(int(value))
    return f"{value:.1f}"


def _free_text(text: str) -> str:
    return " ".join(text.translate(_BRACKETS).split())


def _inventory_line(items: tuple[InventoryItem, ...], budget: int) -> tuple[str, int]:
    """The inventory line and the facts it costs, within ``budget`` (>= 1)."""
    if not items:
        return "Inventory: empty", 1
    cost = min(len(items), INVENTORY_MAX_FACTS)
    if cost <= budget:
        shown = items
    else:
        cost = budget
        shown = items[:budget]
    parts = [f"{i.item} x{i.count}" for i in shown]
    hidden = len(items) - len(shown)
    if hidden:
        parts.append(f"+{hidden} more")
    return "Inventory: " + ", ".join(parts), cost


def _nearby_order(entity: NearbyEntity) -> tuple[bool, float, str]:
    return (not entity.hostile, entity.distance_min, entity.kind)


def _nearby_item(entity: NearbyEntity) -> str:
    text = f"{entity.count}x {entity.kind} ({round(entity.distance_min)}m)"
    return text + " [hostile]" if entity.hostile else text


def _fact_lines(facts: SituationFacts, budget: int) -> tuple[list[str], list[str], int]:
    """Bot and world lines in priority order, and the facts they cost."""
    bot = facts.bot
    world = facts.world
    x, y, z = bot.position.x, bot.position.y, bot.position.z
    bot_lines = [
        f"Health: {format_number(bot.health)}/20",
        f"Hunger: {format_number(bot.hunger)}/20",
        f"Position: ({round(x)}, {round(y)}, {round(z)})",
        f"Time: {TIME_LABELS[bot.time_of_day]}",
    ]
    if bot.threat_level not in (None, ThreatLevel.NONE):
        bot_lines.append(f"Threat Level: {bot.threat_level}")
    bot_lines = bot_lines[:budget]
    used = len(bot_lines)
    world_lines: list[str] = []
    if used < budget:
        line, cost = _inventory_line(bot.inventory, budget - used)
        bot_lines.append(line)
        used += cost
    for label, value in (
        ("Biome", world.biome),
        ("Dimension", world.dimension),
        ("Weather", world.weather),
    ):
        if value is not None and used < budget:
            world_lines.append(f"{label}: {value}")
            used += 1
    if used < budget:
        entities = sorted(world.nearby_entities, key=_nearby_order)
        shown = entities[: budget - used]
        if not entities:
            world_lines.append("Nearby: none")
            used += 1
        else:
            world_lines.append("Nearby: " + ", ".join(_nearby_item(e) for e in shown))
            used += len(shown)
    return bot_lines, world_lines, used


def _memory_lines(memory: Memory | None, budget: int) -> list[str]:
    """Newest episodic memories, then semantic ones; half the slice (rounded
    down) is kept for semantic memories when there are enough of them."""
    if memory is None or budget <= 0:
        return []
    episodic = sorted(memory.episodic or (), key=lambda m: -m.timestamp_ms)
    semantic = list(memory.semantic or ())
    reserved = min(len(semantic), budget // 2)
    recent = episodic[: budget - reserved]
    known = semantic[: budget - len(recent)]
    return [f"[Recent] {_free_text(m.text)}" for m in recent] + [
        f"[{m.key}] {_free_text(m.text)}" for m in known
    ]


def _delta_lines(deltas: tuple[Delta, ...] | None, budget: int) -> list[str]:
    """The last ``budget`` changes, oldest first."""
    if not deltas or budget <= 0:
        return []
    lines = []
    for delta in deltas[-budget:]:
        value = delta.value
        shown = _free_text(value) if isinstance(value, str) else format_number(value)
        lines.append(f"{DELTA_LABELS[delta.type]}: {shown}")
    return lines


def render_frame(facts: SituationFacts, *, profile: PromptProfile) -> RenderedFrame:
    """Render ``facts`` as the situation frame of ``profile``.

    Sections ``[Bot State]``, ``[World State]``, ``[Recent Changes]``,
    ``[Memory]`` separated by one blank line; empty sections are left out.
    Facts in priority order (health, hunger, position, time, threat level when
    not none, inventory worth at most ``INVENTORY_MAX_FACTS``, biome,
    dimension, weather, nearby entities with hostiles first, one fact each)
    until the profile's fact budget is spent. Deterministic.
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
    return RenderedFrame(
        text=text,
        profile=PromptProfile(profile),
        fact_count=fact_count,
        memory_count=len(memory_lines),
        delta_count=len(delta_lines),
        digest=sha256_hex(text),
    )
