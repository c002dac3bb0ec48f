"""Grounding: does a goal refer only to what the situation frame holds? (PA-D1)

Decides, for an extracted goal and the facts it was produced from, whether
every target term is backed by the frame, and if not, which hallucination
category applies. Invariants:

- A term is grounded when it names something present: a held inventory item,
  a nearby entity kind or the current biome/dimension (whole names or their
  ``_``-separated parts, singular or plural); class words ("hostiles",
  "animals") are present when an entity of that class is nearby.
- A term that is not present fails only when it is a *known* word: a known
  entity -> ``missing_entity``, a known item -> ``missing_item`` (the item
  must be held; for ``craft``/``build``/``smelt`` the target is the product,
  so items there are not required to be held), a known place ->
  ``missing_location``. Unknown generic words ("nearby", "village", "away")
  pass: the vocabulary lists names, not every word.
- Contradictions: any goal while health <= 0; ``craft``/``smelt`` with an
  empty inventory.
- The first failing term decides the category; ``missing`` lists every
  failing term in target order. Deterministic; the vocabulary is data here,
  not configuration read at run time.
"""

from __future__ import annotations

from typing import Final

from stream.core.types import (
    Goal,
    GroundingCategory,
    GroundingResult,
    SituationFacts,
)

KNOWN_ENTITIES: Final[frozenset[str]] = frozenset(
    {
        "zombie", "skeleton", "creeper", "spider", "cave_spider", "enderman",
        "witch", "slime", "phantom", "drowned", "husk", "stray", "pillager",
        "vindicator", "evoker", "ravager", "blaze", "ghast", "piglin",
        "hoglin", "zoglin", "wither_skeleton", "magma_cube", "silverfish",
        "endermite", "guardian", "elder_guardian", "shulker", "warden",
        "zombie_villager", "zombified_piglin", "cow", "pig", "sheep",
        "chicken", "horse", "donkey", "mule", "llama", "rabbit", "wolf",
        "cat", "ocelot", "fox", "bee", "goat", "turtle", "parrot", "panda",
        "polar_bear", "villager", "wandering_trader", "iron_golem",
        "snow_golem", "squid", "glow_squid", "dolphin", "axolotl", "frog",
        "bat", "mooshroom", "strider", "camel", "sniffer", "armadillo",
        "player",
    }
)  # fmt: skip

# Class words: present when any entity of the class is nearby.
HOSTILE_CLASS: Final[frozenset[str]] = frozenset(
    {"hostile", "hostiles", "monster", "monsters", "mob", "mobs", "enemy", "enemies"}
)
PASSIVE_CLASS: Final[frozenset[str]] = frozenset(
    {"animal", "animals", "creature", "creatures", "passive", "passives"}
)

KNOWN_ITEMS: Final[frozenset[str]] = frozenset(
    {
        "oak_log", "birch_log", "spruce_log", "jungle_log", "acacia_log",
        "dark_oak_log", "mangrove_log", "cherry_log", "log", "wood",
        "oak_planks", "birch_planks", "spruce_planks", "planks", "stick",
        "sticks", "crafting_table", "furnace", "chest", "torch", "bed",
        "cobblestone", "stone", "dirt", "sand", "gravel", "clay", "glass",
        "coal", "charcoal", "coal_ore", "iron_ore", "raw_iron",
        "iron_ingot", "gold_ore", "raw_gold", "gold_ingot", "copper_ore",
        "raw_copper", "copper_ingot", "diamond", "diamond_ore", "emerald",
        "redstone", "lapis_lazuli", "obsidian", "flint", "string",
        "feather", "leather", "wool", "bone", "arrow", "bow",
        "wooden_pickaxe", "stone_pickaxe", "iron_pickaxe",
        "diamond_pickaxe", "wooden_axe", "stone_axe", "iron_axe",
        "wooden_sword", "stone_sword", "iron_sword", "diamond_sword",
        "wooden_shovel", "stone_shovel", "iron_shovel", "shield",
        "bucket", "water_bucket", "iron_helmet", "iron_chestplate",
        "iron_leggings", "iron_boots", "pickaxe", "axe", "sword", "shovel",
        "hoe", "apple", "bread", "wheat", "wheat_seeds", "carrot",
        "potato", "baked_potato", "beef", "cooked_beef", "porkchop",
        "cooked_porkchop", "mutton", "cooked_mutton", "cooked_chicken",
        "raw_chicken", "cod", "salmon", "cooked_cod", "cooked_salmon",
        "rotten_flesh", "sugar_cane", "paper", "book", "ore", "ingot",
        "ingots",
    }
)  # fmt: skip

KNOWN_LOCATIONS: Final[frozenset[str]] = frozenset(
    {
        "plains", "sunflower_plains", "snowy_plains", "forest",
        "birch_forest", "dark_forest", "flower_forest", "taiga",
        "snowy_taiga", "old_growth_taiga", "jungle", "bamboo_jungle",
        "swamp", "mangrove_swamp", "savanna", "desert", "badlands",
        "mountains", "meadow", "grove", "snowy_slopes", "jagged_peaks",
        "stony_peaks", "windswept_hills", "beach", "stony_shore", "river",
        "frozen_river", "ocean", "deep_ocean", "warm_ocean", "cold_ocean",
        "frozen_ocean", "mushroom_fields", "dripstone_caves", "lush_caves",
        "deep_dark", "cherry_grove", "overworld", "nether", "the_nether",
        "end", "the_end", "nether_wastes", "soul_sand_valley",
        "crimson_forest", "warped_forest", "basalt_deltas",
    }
)  # fmt: skip

# The target names a product to be made, not something already held.
PRODUCT_ACTIONS: Final[frozenset[str]] = frozenset({"craft", "build", "smelt"})
# Making something needs materials; with nothing held it cannot happen.
NEEDS_MATERIALS: Final[frozenset[str]] = frozenset({"craft", "smelt"})

_ENTITY_WORDS: Final = KNOWN_ENTITIES | HOSTILE_CLASS | PASSIVE_CLASS
_KNOWN: Final = _ENTITY_WORDS | KNOWN_ITEMS | KNOWN_LOCATIONS
_GROUNDED: Final = GroundingResult(True, "grounded", None, ())
_NO_GOAL: Final = GroundingResult(False, "no_goal", None, ())


def _name(value: str) -> str:
    name = value.lower().strip()
    if ":" in name:  # namespaced ids such as minecraft:oak_log
        name = name.rsplit(":", 1)[1]
    return "_".join(name.split())


def _variants(term: str) -> tuple[str, ...]:
    """The term and its singular forms (logs -> log, torches -> torch)."""
    forms = [term]
    if term.endswith("ies") and len(term) > 4:
        forms.append(term[:-3] + "y")
    if term.endswith("es") and len(term) > 3:
        forms.append(term[:-2])
    if term.endswith("s") and len(term) > 2:
        forms.append(term[:-1])
    return tuple(forms)


def _names_with_parts(names: list[str]) -> frozenset[str]:
    out: set[str] = set()
    for name in names:
        out.add(name)
        out.update(part for part in name.split("_") if part)
    return frozenset(out)


def _terms(target: str, known: frozenset[str]) -> list[str]:
    """The whole target as one name when it is one, else its words."""
    words = target.split()
    if len(words) > 1:
        joined = "_".join(words)
        if any(v in known for v in _variants(joined)):
            return [joined]
    return words


def ground(goal: Goal | None, *, facts: SituationFacts) -> GroundingResult:
    """Check ``goal`` against ``facts`` (PA-D1); see the module docstring.

    ``goal=None`` gives ``passed=False, reason="no_goal", category=None``:
    nothing to ground is not a hallucination. Deterministic, no I/O.
    """
    if goal is None:
        return _NO_GOAL
    if facts.bot.health <= 0:
        return GroundingResult(
            False, GroundingCategory.CONTRADICTION.value,
            GroundingCategory.CONTRADICTION, ("health",),
        )  # fmt: skip
    if goal.action in NEEDS_MATERIALS and not facts.bot.inventory:
        return GroundingResult(
            False, GroundingCategory.CONTRADICTION.value,
            GroundingCategory.CONTRADICTION, ("inventory",),
        )  # fmt: skip
    if not goal.target:
        return _GROUNDED
    held = _names_with_parts([_name(i.item) for i in facts.bot.inventory])
    nearby = facts.world.nearby_entities
    entities = _names_with_parts([_name(e.kind) for e in nearby])
    if any(e.hostile for e in nearby):
        entities |= HOSTILE_CLASS
    if any(not e.hostile for e in nearby):
        entities |= PASSIVE_CLASS
    places = [_name(facts.world.biome)]
    if facts.world.dimension is not None:
        places.append(_name(facts.world.dimension))
    here = _names_with_parts(places)
    present = held | entities | here
    products = goal.action in PRODUCT_ACTIONS
    category: GroundingCategory | None = None
    missing: list[str] = []
    for term in _terms(goal.target, _KNOWN):
        variants = _variants(term)
        if any(v in present for v in variants):
            continue
        if any(v in _ENTITY_WORDS for v in variants):
            failed = GroundingCategory.MISSING_ENTITY
        elif any(v in KNOWN_ITEMS for v in variants):
            if products:
                continue
            failed = GroundingCategory.MISSING_ITEM
        elif any(v in KNOWN_LOCATIONS for v in variants):
            failed = GroundingCategory.MISSING_LOCATION
        else:
            continue
        category = category or failed
        missing.append(term)
    if category is None:
        return _GROUNDED
    return GroundingResult(False, category.value, category, tuple(missing))
