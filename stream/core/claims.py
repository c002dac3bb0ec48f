"""Claim grounding: are the things a thought asserts in free text in the frame?

Goal grounding (``stream.core.grounding``) checks only a goal's target. A
thought can still assert state the frame does not hold ("my diamond sword",
"the zombie next to me"); PA-D1 calls that fabricated state. This module
finds such assertions about known names and checks each against the frame.
It is a measurement of its own: it never changes the goal's grounding, the
eligibility decision or any verdict.

What counts as a claim (a heuristic over words, stated so its limits are
plain):

- a known entity or entity class ("zombie", "cows", "hostiles") asserts that
  it is around; a known place ("river", "desert") that it is where the agent
  is; a known item ("diamond_sword", "iron ingots") is a claim only in a
  possessive context (``my``, ``have``, ``holding``, ``carrying``, ``got``
  in the three words before it);
- a mention is not a claim when one of the three words before it negates
  (``no``, ``not``, ``without``, ``any``, ``n't`` ...) or expresses intent or
  possibility (``want``, ``need``, ``find``, ``might``, ``if`` ..., and every
  canonical action verb), or one of the two words after it is a modal
  (``might``, ``could``, ``would`` ...): "no zombies", "I need a pickaxe", "a
  creeper might come" assert nothing about the frame;
- multi-word names are matched as written with spaces or underscores
  ("diamond sword", "oak_log"), a trailing plural ``s``/``es`` is dropped.

A claim is grounded when the frame's facts hold it (a nearby entity kind,
the class of one, an inventory item or a generic word for one such as
``pickaxe`` for ``stone_pickaxe``, the biome or dimension or a part of its
name) or when the rendered frame text names it (a memory, a change).
Pure and deterministic; ``CLAIM_GROUNDING_VERSION`` changes with the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from stream.core.goals import CANONICAL_ACTIONS
from stream.core.types import GroundingCategory, SituationFacts

CLAIM_GROUNDING_VERSION: Final = 1

# The names a claim can be about. Claim grounding keeps its own vocabulary:
# goal grounding's follows the reference grounder and may change with it.
CLAIM_ENTITIES: Final[frozenset[str]] = frozenset(
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

CLAIM_ITEMS: Final[frozenset[str]] = frozenset(
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

CLAIM_PLACES: Final[frozenset[str]] = frozenset(
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


# Too generic in prose to read as a claim about the frame.
_AMBIGUOUS: Final = frozenset(
    {"end", "the_end", "wood", "log", "stone", "ore", "ingot", "ingots", "string",
     "book", "paper", "player", "bed", "glass", "bone", "ocean"}
)  # fmt: skip
_NEGATIONS: Final = frozenset(
    {"no", "not", "without", "never", "none", "nothing", "nor", "any", "zero",
     "lack", "lacking", "missing", "isn't", "aren't", "don't", "doesn't",
     "didn't", "haven't", "hasn't", "can't", "cannot", "won't", "no_longer"}
)  # fmt: skip
_INTENT: Final = frozenset(
    {"want", "wants", "need", "needs", "needed", "find", "finding", "look",
     "looking", "search", "searching", "seek", "hunt", "hunting", "get",
     "getting", "make", "making", "might", "could", "may", "maybe", "if",
     "perhaps", "would", "should", "will", "hope", "wish", "worried", "afraid",
     "fear", "wonder", "until", "before", "unless", "plan", "planning"}
) | CANONICAL_ACTIONS  # fmt: skip
_POSSESSIVE: Final = frozenset(
    {"my", "have", "has", "holding", "hold", "carrying", "carry", "got",
     "wielding", "i've", "inventory"}
)  # fmt: skip
# After a mention: "a creeper might come" asserts no creeper.
_MODAL_AFTER: Final = frozenset({"might", "could", "may", "would", "will", "should"})
_WINDOW: Final = 3
_TOKEN: Final = re.compile(r"[a-z][a-z_']*")
_SENTENCE: Final = re.compile(r"[.!?;\n]+")

_ENTITY_NAMES: Final = (CLAIM_ENTITIES | HOSTILE_CLASS | PASSIVE_CLASS) - _AMBIGUOUS
_ITEM_NAMES: Final = CLAIM_ITEMS - _AMBIGUOUS
_PLACE_NAMES: Final = CLAIM_PLACES - _AMBIGUOUS


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One claimed name, its category and whether the frame holds it."""

    name: str
    category: GroundingCategory
    grounded: bool


@dataclass(frozen=True, slots=True)
class ClaimGrounding:
    claims: tuple[ClaimCheck, ...]

    @property
    def ungrounded(self) -> tuple[ClaimCheck, ...]:
        return tuple(c for c in self.claims if not c.grounded)

    @property
    def passed(self) -> bool:
        return not self.ungrounded


def _singular(word: str) -> tuple[str, ...]:
    forms = [word]
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    return tuple(forms)


# Texts repeat few words: the lookup of a word (pure, small answers) is kept.
@lru_cache(maxsize=16384)
def _lookup_joined(joined: str) -> tuple[str, GroundingCategory] | None:
    for form in _singular(joined):
        if form in _ENTITY_NAMES:
            return form, GroundingCategory.MISSING_ENTITY
        if form in _ITEM_NAMES:
            return form, GroundingCategory.MISSING_ITEM
        if form in _PLACE_NAMES:
            return form, GroundingCategory.MISSING_LOCATION
    return None


# What a name of several words can start with: every part of a name before
# one of its underscores ("wither", "dark", "dark_oak"). Words joined with
# "_" can only be a name (or its plural) when their first word, or first two
# words, are in here, so most words are looked up alone.
_NAME_HEADS: Final = frozenset(
    name[:index]
    for name in _ENTITY_NAMES | _ITEM_NAMES | _PLACE_NAMES
    for index, char in enumerate(name)
    if char == "_"
)

_Mention = tuple[str, GroundingCategory, tuple[str, ...], tuple[str, ...]]


def _mentions(text: str) -> list[_Mention]:
    """(name, category, up to 3 words before it and 2 after it in its
    sentence), longest name first at each position."""
    found: list[_Mention] = []
    heads = _NAME_HEADS
    lookup = _lookup_joined
    for sentence in _SENTENCE.split(text.lower()):
        tokens = [t.strip("'") for t in _TOKEN.findall(sentence)]
        count = len(tokens)
        index = 0
        while index < count:
            first = tokens[index]
            hit = None
            size = 1
            if first in heads and index + 1 < count:
                two = f"{first}_{tokens[index + 1]}"
                if index + 2 < count and two in heads:
                    hit = lookup(f"{two}_{tokens[index + 2]}")
                    size = 3
                if hit is None:
                    hit = lookup(two)
                    size = 2
            if hit is None:
                hit = lookup(first)
                size = 1
            if hit is not None:
                before = tuple(tokens[max(0, index - _WINDOW) : index])
                after = tuple(tokens[index + size : index + size + 2])
                found.append((hit[0], hit[1], before, after))
                index += size
            else:
                index += 1
    return found


def _is_claim(
    category: GroundingCategory, before: tuple[str, ...], after: tuple[str, ...]
) -> bool:
    words = set(before)
    if words & _NEGATIONS or any(w.endswith("n't") for w in words):
        return False
    if words & _INTENT or set(after) & _MODAL_AFTER:
        return False
    if category is GroundingCategory.MISSING_ITEM:
        return bool(words & _POSSESSIVE)
    return True


def _present(
    facts: SituationFacts, frame_text: str
) -> dict[GroundingCategory, set[str]]:
    entities = {e.kind.lower() for e in facts.world.nearby_entities}
    if any(e.hostile for e in facts.world.nearby_entities):
        entities |= HOSTILE_CLASS
    if any(not e.hostile for e in facts.world.nearby_entities):
        entities |= PASSIVE_CLASS
    items: set[str] = set()
    for held in facts.bot.inventory:
        name = held.item.lower()
        items.add(name)
        items.update(part for part in name.split("_") if part)
    places: set[str] = set()
    for place in (facts.world.biome, facts.world.dimension or ""):
        name = place.lower()
        if name:
            places.add(name)
            places.update(part for part in name.split("_") if part)
    places.update(f"the_{p}" for p in list(places))
    named = _named_in_frame(frame_text)
    return {
        GroundingCategory.MISSING_ENTITY: entities | named,
        GroundingCategory.MISSING_ITEM: items | named,
        GroundingCategory.MISSING_LOCATION: places | named,
    }


# The names a rendered frame mentions: scenarios that share a frame (and a
# prompt profile) render the same text, so it is read once.
@lru_cache(maxsize=1024)
def _named_in_frame(frame_text: str) -> frozenset[str]:
    return frozenset(mention[0] for mention in _mentions(frame_text))


def ground_claims(
    text: str, *, facts: SituationFacts, frame_text: str = ""
) -> ClaimGrounding:
    """Every claim of ``text`` about a known name, checked against the frame.

    ``text`` is the sanitized thought (goal tag and INTENT line removed);
    ``frame_text`` the rendered frame the model saw, whose names count as
    present. Each name is reported once, in order of first mention.
    """
    present: dict[GroundingCategory, set[str]] | None = None
    seen: set[str] = set()
    claims: list[ClaimCheck] = []
    for name, category, before, after in _mentions(text):
        if name in seen or not _is_claim(category, before, after):
            continue
        seen.add(name)
        if present is None:  # read from the frame once a claim needs it
            present = _present(facts, frame_text)
        claims.append(ClaimCheck(name, category, name in present[category]))
    return ClaimGrounding(tuple(claims))


def claims_to_wire(result: ClaimGrounding) -> dict[str, Any]:
    """``{"version", "checked", "pass", "ungrounded": [{"name", "category"}]}``."""
    return {
        "version": CLAIM_GROUNDING_VERSION,
        "checked": len(result.claims),
        "pass": result.passed,
        "ungrounded": [
            {"name": c.name, "category": c.category.value} for c in result.ungrounded
        ],
    }
