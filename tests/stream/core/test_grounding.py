"""PA-D1: a goal may only refer to what the frame holds (the reference rules).

``full_facts`` holds oak_log, stone, iron_ore and bread; a cow, a zombie and
two skeletons nearby; biome birch_forest; health 14.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from stream.core.grounding import ground
from stream.core.types import (
    Goal,
    GroundingCategory,
    GroundingResult,
    InventoryItem,
    SituationFacts,
)


def goal(action: str, target: str) -> Goal:
    return Goal(action, target, None, None, f"[GOAL: {action} {target}]")


def grounded(*referenced: str) -> GroundingResult:
    return GroundingResult(True, "grounded", None, (), referenced)


@pytest.mark.parametrize(
    ("action", "target", "referenced"),
    [
        ("collect", "oak_log", ("inventory:oak", "inventory:log")),
        ("collect", "oak log", ("inventory:oak", "inventory:log")),
        ("smelt", "iron_ore", ("inventory:iron", "inventory:ore")),
        ("navigate", "away from zombie", ("entity:zombie",)),
        ("find", "skeleton", ("entity:skeleton",)),
        ("explore", "birch_forest", ("biome:birch_forest", "biome:birch_forest")),
        ("explore", "forest", ("biome:birch_forest",)),
        ("navigate", "nearby village", ()),  # unknown words pass
        ("build", "shelter", ()),
    ],
)
def test_pa_d1_grounded_targets_pass(
    full_facts: SituationFacts,
    action: str,
    target: str,
    referenced: tuple[str, ...],
) -> None:
    assert ground(goal(action, target), facts=full_facts) == grounded(*referenced)


def test_pa_d1_a_word_inside_a_held_name_is_grounded(
    calm_facts: SituationFacts,
) -> None:
    # "stone" is part of "cobblestone": the reference grounder accepts it.
    bot = replace(calm_facts.bot, inventory=(InventoryItem("cobblestone", 32),))
    facts = replace(calm_facts, bot=bot)
    assert ground(goal("mine", "stone"), facts=facts) == grounded("inventory:stone")


@pytest.mark.parametrize(
    ("action", "target", "category", "missing"),
    [
        ("find", "creeper", GroundingCategory.MISSING_ENTITY, ("creeper",)),
        ("collect", "diamond", GroundingCategory.MISSING_ITEM, ("diamond",)),
        # Item-like but in no held name (a plural is not matched).
        ("collect", "logs", GroundingCategory.MISSING_ITEM, ("logs",)),
        ("repair", "golden_pickaxe", GroundingCategory.MISSING_ITEM, ("golden", "pickaxe")),
        ("explore", "desert", GroundingCategory.MISSING_LOCATION, ("desert",)),
        (
            "find",
            "diamond near creeper",
            GroundingCategory.MISSING_ITEM,
            ("diamond", "creeper"),
        ),
    ],
)  # fmt: skip
def test_pa_d1_fabricated_targets_fail_with_category(
    full_facts: SituationFacts,
    action: str,
    target: str,
    category: GroundingCategory,
    missing: tuple[str, ...],
) -> None:
    result = ground(goal(action, target), facts=full_facts)
    assert (result.passed, result.reason, result.category, result.missing) == (
        False,
        category.value,
        category,
        missing,
    )


def test_referenced_facts_are_kept_when_grounding_fails(
    full_facts: SituationFacts,
) -> None:
    result = ground(goal("find", "creeper near cow"), facts=full_facts)
    assert result.referenced == ("entity:cow",)
    assert result.missing == ("creeper",)


@pytest.mark.parametrize("action", ["craft", "smelt"])
def test_making_with_an_empty_inventory_is_a_contradiction(
    calm_facts: SituationFacts, action: str
) -> None:
    contradiction = GroundingCategory.CONTRADICTION
    assert ground(goal(action, "shelter"), facts=calm_facts) == GroundingResult(
        False,
        "contradiction",
        contradiction,
        ("inventory",),
        (),
        ((contradiction, "inventory"),),
    )


def test_fabricated_words_come_before_a_contradiction(
    calm_facts: SituationFacts,
) -> None:
    result = ground(goal("craft", "torch"), facts=calm_facts)
    assert result.category == GroundingCategory.MISSING_ITEM
    assert result.missing == ("torch", "inventory")


def test_building_with_an_empty_inventory_is_not_a_contradiction(
    calm_facts: SituationFacts,
) -> None:
    assert ground(goal("build", "shelter"), facts=calm_facts) == grounded()


def test_any_goal_at_zero_health_is_a_contradiction(
    full_facts: SituationFacts,
) -> None:
    dead = replace(full_facts, bot=replace(full_facts.bot, health=0))
    result = ground(goal("collect", "oak_log"), facts=dead)
    assert (result.passed, result.category, result.missing) == (
        False,
        GroundingCategory.CONTRADICTION,
        ("health",),
    )


def test_targetless_goal_is_grounded(calm_facts: SituationFacts) -> None:
    assert ground(Goal("pause", "", None, None, "[GOAL: pause]"), facts=calm_facts) == (
        grounded()
    )


def test_no_goal_is_not_grounded_and_not_a_hallucination(
    calm_facts: SituationFacts,
) -> None:
    assert ground(None, facts=calm_facts) == GroundingResult(False, "no_goal", None, ())


def test_item_matching_ignores_case(calm_facts: SituationFacts) -> None:
    bot = replace(calm_facts.bot, inventory=(InventoryItem("Cobble_Stone", 3),))
    facts = replace(calm_facts, bot=bot)
    assert ground(goal("collect", "cobblestone"), facts=facts) == grounded(
        "inventory:cobblestone"
    )
