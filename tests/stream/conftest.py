from __future__ import annotations

import copy
from typing import Any

import pytest

CALM_FACTS: dict[str, Any] = {
    "bot": {
        "position": {"x": 10, "y": 64, "z": -3},
        "health": 20,
        "hunger": 18,
        "inventorySummary": [{"item": "oak_log", "count": 4}],
        "timeOfDay": "day",
    },
    "world": {
        "biome": "forest",
        "nearbyEntities": [{"kind": "cow", "count": 2, "distanceMin": 6}],
    },
}


@pytest.fixture
def calm_facts() -> dict[str, Any]:
    return copy.deepcopy(CALM_FACTS)


@pytest.fixture
def perceive(agent_client: Any) -> Any:
    def post(facts: dict[str, Any], **extra: Any) -> Any:
        return agent_client.post(
            "/api/cognitive-stream/percepts", {"facts": facts, **extra}, format="json"
        )

    return post


@pytest.fixture
def publish(agent_client: Any) -> Any:
    def post(content: str, **extra: Any) -> Any:
        return agent_client.post(
            "/api/cognitive-stream/thoughts",
            {"content": content, **extra},
            format="json",
        )

    return post
