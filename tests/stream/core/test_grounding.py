"""PA-D1: a goal may only refer to what the frame holds."""

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


GROUNDED = GroundingResult(True, "grounded", None, ())


@pytest.mark.parametrize(
    ("action", "target"),
    [
        ("collect", "oak_log"),  # held
        ("collect", "oak log"),  # words joined into a held name
        ("collect", "logs"),  # plural of a part of a held name
        ("smelt", "iron_ore"),
        ("navigate", "away from zombie"),  # nearby entity, generic words
        ("find", "cows"),
        ("navigate", "skeletons"),
        ("check", "hostiles"),  # class word, a hostile is nearby
        ("find", "animals"),  # class word, a passive animal is nearby
        ("explore", "birch_forest"),  # current biome
        ("explore", "forest"),  # part of the current biome
        ("navigate", "overworld"),
        ("navigate", "nearby village"),  # unknown generic words
        ("craft", "crafting_table"),  # a product need not be held
        ("build", "shelter"),
        ("collect", "minecraft:bread"),
    ],
)
def test_pa_d1_grounded_targets_pass(
    full_facts: SituationFacts, action: str, target: str
) -> None:
    assert ground(goal(action, target), facts=full_facts) == GROUNDED


@pytest.mark.parametrize(
    ("action", "target", "category", "missing"),
    [
        ("find", "creeper", GroundingCategory.MISSING_ENTITY, ("creeper",)),
        ("navigate", "villagers", GroundingCategory.MISSING_ENTITY, ("villagers",)),
        ("collect", "diamond", GroundingCategory.MISSING_ITEM, ("diamond",)),
        ("mine", "iron ingot", GroundingCategory.MISSING_ITEM, ("iron_ingot",)),
        ("repair", "iron_pickaxe", GroundingCategory.MISSING_ITEM, ("iron_pickaxe",)),
        ("explore", "desert", GroundingCategory.MISSING_LOCATION, ("desert",)),
        ("navigate", "the nether", GroundingCategory.MISSING_LOCATION, ("the_nether",)),
        (
            "find",
            "diamond near creeper",
            GroundingCategory.MISSING_ITEM,
            ("diamond", "creeper"),
        ),
    ],
)
def test_pa_d1_fabricated_targets_fail_with_category(
    full_facts: SituationFacts,
    action: str,
    target: str,
    category: GroundingCategory,
    missing: tuple[str, ...],
) -> None:
    assert ground(goal(action, target), facts=full_facts) == GroundingResult(
        False, category.value, category, missing
    )


def test_class_words_fail_when_no_such_entity_is_near(
    calm_facts: SituationFacts,
) -> None:
    result = ground(goal("navigate", "away from hostiles"), facts=calm_facts)
    assert result == GroundingResult(
        False, "missing_entity", GroundingCategory.MISSING_ENTITY, ("hostiles",)
    )


@pytest.mark.parametrize("action", ["craft", "smelt"])
def test_making_with_an_empty_inventory_is_a_contradiction(
    calm_facts: SituationFacts, action: str
) -> None:
    assert ground(goal(action, "torch"), facts=calm_facts) == GroundingResult(
        False, "contradiction", GroundingCategory.CONTRADICTION, ("inventory",)
    )


def test_building_with_an_empty_inventory_is_not_a_contradiction(
    calm_facts: SituationFacts,
) -> None:
    assert ground(goal("build", "shelter"), facts=calm_facts) == GROUNDED


def test_any_goal_at_zero_health_is_a_contradiction(
    full_facts: SituationFacts,
) -> None:
    dead = replace(full_facts, bot=replace(full_facts.bot, health=0))
    assert ground(goal("collect", "oak_log"), facts=dead) == GroundingResult(
        False, "contradiction", GroundingCategory.CONTRADICTION, ("health",)
    )


def test_targetless_goal_is_grounded(calm_facts: SituationFacts) -> None:
    assert ground(Goal("pause", "", None, None, "[GOAL: pause]"), facts=calm_facts) == (
        GROUNDED
    )


def test_no_goal_is_not_grounded_and_not_a_hallucination(
    calm_facts: SituationFacts,
) -> None:
    assert ground(None, facts=calm_facts) == GroundingResult(False, "no_goal", None, ())


def test_item_matching_ignores_case_and_namespace(calm_facts: SituationFacts) -> None:
    bot = replace(
        calm_facts.bot, inventory=(InventoryItem("Minecraft:Cobblestone", 3),)
    )
    facts = replace(calm_facts, bot=bot)
    assert ground(goal("collect", "cobblestone"), facts=facts) == GROUNDED
