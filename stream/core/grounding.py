"""Grounding: does a goal refer only to what the situation frame holds? (PA-D1)

Decides, for an extracted goal and the facts it was produced from, which
frame facts the goal's target refers to and which of its words name
something the frame does not hold. It follows the reference grounder of the
project the stream contract comes from (falsification style: look for
violations, pass when there is none). Invariants:

- The target is split into words at whitespace and ``_``; each word
  (lowercased, ``_`` removed) is checked in this order, and the first match
  decides: a held item whose name contains it or is contained in it
  (``stone`` with ``cobblestone`` held) -> ``inventory:<word>``; a nearby
  entity kind the same way -> ``entity:<word>``; the current biome the same
  way -> ``biome:<biome>``; a known entity that is not nearby ->
  ``missing_entity``; a known biome that is not the current one ->
  ``missing_location``; a word that looks like an item (it contains, or is
  contained in, an item word such as ``log``, ``ore``, ``pickaxe``) and is not
  held -> ``missing_item``; any other word is unknown and passes.
- Contradictions, after the words: any goal while health <= 0; ``craft`` or
  ``smelt`` with an empty inventory.
- ``category`` is the first violation's; ``missing`` lists every violating
  word (or contradicted fact) in order; ``referenced`` every fact a word
  referred to, in target order. Deterministic; the vocabularies are data.
"""

from __future__ import annotations

import re
from typing import Final

from stream.core.types import (
    Goal,
    GroundingCategory,
    GroundingResult,
    SituationFacts,
)

# Entity kinds and biomes the grounder recognises as names even when the
# frame does not hold them (a name it does not know is never a violation).
KNOWN_ENTITIES: Final[frozenset[str]] = frozenset(
    {
        "pig", "cow", "sheep", "chicken", "horse", "donkey", "mule", "rabbit",
        "wolf", "cat", "ocelot", "parrot", "fox", "bee", "squid", "glow_squid",
        "dolphin", "turtle", "panda", "polar_bear", "llama", "trader_llama",
        "wandering_trader", "villager", "iron_golem", "snow_golem", "bat",
        "zombie", "skeleton", "creeper", "spider", "cave_spider", "enderman",
        "slime", "magma_cube", "witch", "pillager", "vindicator", "evoker",
        "vex", "ravager", "phantom", "drowned", "husk", "stray", "blaze",
        "ghast", "wither_skeleton", "piglin", "piglin_brute", "hoglin",
        "zoglin", "zombified_piglin", "endermite", "silverfish", "shulker",
        "guardian", "elder_guardian", "warden", "wither", "ender_dragon",
    }
)  # fmt: skip

KNOWN_BIOMES: Final[frozenset[str]] = frozenset(
    {
        "plains", "forest", "birch_forest", "dark_forest", "flower_forest",
        "taiga", "snowy_taiga", "old_growth_pine_taiga",
        "old_growth_spruce_taiga", "jungle", "sparse_jungle", "bamboo_jungle",
        "swamp", "mangrove_swamp", "desert", "badlands", "eroded_badlands",
        "wooded_badlands", "savanna", "windswept_savanna", "meadow", "grove",
        "snowy_slopes", "frozen_peaks", "jagged_peaks", "stony_peaks", "river",
        "frozen_river", "beach", "snowy_beach", "stony_shore", "ocean",
        "deep_ocean", "warm_ocean", "lukewarm_ocean", "cold_ocean",
        "frozen_ocean", "mushroom_fields", "dripstone_caves", "lush_caves",
        "deep_dark", "nether_wastes", "soul_sand_valley", "crimson_forest",
        "warped_forest", "basalt_deltas", "the_end", "end_highlands",
        "end_midlands",
    }
)  # fmt: skip

# A word is item-like when it contains one of these or is contained in one.
ITEM_WORDS: Final[tuple[str, ...]] = (
    "log", "wood", "planks", "stick", "ore", "ingot", "block", "slab",
    "stairs", "fence", "door", "trapdoor", "button", "pressure_plate", "sign",
    "torch", "pickaxe", "axe", "shovel", "hoe", "sword", "helmet",
    "chestplate", "leggings", "boots", "bow", "arrow", "shield", "trident",
    "crossbow", "fishing_rod", "bucket", "shears", "flint_and_steel",
    "compass", "clock", "map", "book", "coal", "iron", "gold", "diamond",
    "emerald", "lapis", "redstone", "quartz", "netherite", "copper", "stone",
    "cobblestone", "dirt", "sand", "gravel",
)  # fmt: skip

# Making something needs materials; with nothing held it cannot happen.
NEEDS_MATERIALS: Final[frozenset[str]] = frozenset({"craft", "smelt"})

# Words of a target: split at whitespace (JavaScript's \s set) and "_".
_WORD_BREAK = re.compile(
    "[_\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+"
)
_NO_GOAL: Final = GroundingResult(False, "no_goal", None, ())


def _overlaps(word: str, names: frozenset[str] | set[str]) -> bool:
    return any(name in word or word in name for name in names)


def _is_item_like(word: str) -> bool:
    return any(item in word or word in item for item in ITEM_WORDS)


def ground(goal: Goal | None, *, facts: SituationFacts) -> GroundingResult:
    """Check ``goal`` against ``facts`` (PA-D1); see the module docstring.

    ``goal=None`` gives ``passed=False, reason="no_goal", category=None``:
    nothing to ground is not a hallucination. Deterministic, no I/O.
    """
    if goal is None:
        return _NO_GOAL
    held = {item.item.lower().replace("_", "") for item in facts.bot.inventory}
    kinds = {entity.kind.lower() for entity in facts.world.nearby_entities}
    biome = facts.world.biome.lower()
    referenced: list[str] = []
    violations: list[tuple[GroundingCategory, str]] = []
    for term in _WORD_BREAK.split(goal.target.lower()):
        word = term.replace("_", "")
        if not word:
            continue
        if word in held or _overlaps(word, held):
            referenced.append(f"inventory:{word}")
        elif word in kinds or _overlaps(word, kinds):
            referenced.append(f"entity:{word}")
        elif word in biome or biome in word:
            referenced.append(f"biome:{biome}")
        elif word in KNOWN_ENTITIES:
            violations.append((GroundingCategory.MISSING_ENTITY, term))
        elif word in KNOWN_BIOMES:
            violations.append((GroundingCategory.MISSING_LOCATION, term))
        elif _is_item_like(word):
            violations.append((GroundingCategory.MISSING_ITEM, term))
    if facts.bot.health <= 0:
        violations.append((GroundingCategory.CONTRADICTION, "health"))
    elif goal.action in NEEDS_MATERIALS and not facts.bot.inventory:
        violations.append((GroundingCategory.CONTRADICTION, "inventory"))
    if not violations:
        return GroundingResult(True, "grounded", None, (), tuple(referenced))
    category = violations[0][0]
    return GroundingResult(
        False,
        category.value,
        category,
        tuple(term for _, term in violations),
        tuple(referenced),
        tuple(violations),
    )
