"""Frame documents shared by the pure pipeline tests (no database)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from stream.core.frames import facts_from_wire
from stream.core.types import SituationFacts

FULL_FRAME: dict[str, Any] = {
    "facts": {
        "bot": {
            "position": {"x": 12.4, "y": 64, "z": -30.6},
            "health": 14,
            "hunger": 9.5,
            "inventorySummary": [
                {"item": "oak_log", "count": 6},
                {"item": "stone", "count": 12},
                {"item": "iron_ore", "count": 3},
                {"item": "bread", "count": 1},
            ],
            "timeOfDay": "sunset",
            "threatLevel": "high",
        },
        "world": {
            "biome": "birch_forest",
            "dimension": "overworld",
            "weather": "rain",
            "nearbyEntities": [
                {"kind": "cow", "count": 2, "distanceMin": 12.2},
                {"kind": "zombie", "count": 1, "distanceMin": 5, "hostile": True},
                {"kind": "skeleton", "count": 2, "distanceMin": 18, "hostile": True},
            ],
        },
    },
    "deltas": [
        {"type": "time_advanced", "value": "day -> sunset"},
        {"type": "new_entity", "value": "zombie"},
        {"type": "damage_taken", "value": 4},
        {"type": "health_change", "value": -4},
        {"type": "hunger_change", "value": -1.5},
        {"type": "item_gained", "value": "iron_ore"},
    ],
    "memory": {
        "episodic": [
            {"timestampMs": 1000, "text": "Saw a cave to the east."},
            {"timestampMs": 3000, "text": "A creeper blew up near the river."},
            {"timestampMs": 2000, "text": "Slept through the night."},
        ],
        "semantic": [
            {"key": "home", "text": "Base at (100, 64, 200)."},
            {"key": "iron", "text": "Iron shows up in the cliffs."},
        ],
    },
}

CALM_FRAME: dict[str, Any] = {
    "facts": {
        "bot": {
            "position": {"x": 0, "y": 70, "z": 0},
            "health": 20,
            "hunger": 20,
            "inventorySummary": [],
            "timeOfDay": "day",
        },
        "world": {
            "biome": "plains",
            "nearbyEntities": [{"kind": "sheep", "count": 3, "distanceMin": 9}],
        },
    }
}


@pytest.fixture
def full_doc() -> dict[str, Any]:
    return copy.deepcopy(FULL_FRAME)


@pytest.fixture
def calm_doc() -> dict[str, Any]:
    return copy.deepcopy(CALM_FRAME)


@pytest.fixture
def full_facts() -> SituationFacts:
    return facts_from_wire(copy.deepcopy(FULL_FRAME))


@pytest.fixture
def calm_facts() -> SituationFacts:
    return facts_from_wire(copy.deepcopy(CALM_FRAME))
