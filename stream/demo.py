"""Demo data of the cognitive stream: an agent with percepts and thoughts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.audit import COMMAND_LINE_ORIGIN
from stream.models import Agent
from stream.services.agents import Actor, agent_create
from stream.services.keepalive import keepalive_tick
from stream.services.thoughts import ThoughtInput, percept_record, thoughts_publish

DEMO_AGENT = "demo-scout"

FACTS: dict[str, Any] = {
    "bot": {
        "position": {"x": 12, "y": 64, "z": -40},
        "health": 20,
        "hunger": 17,
        "inventorySummary": [
            {"item": "oak_log", "count": 6},
            {"item": "wooden_pickaxe", "count": 1},
        ],
        "timeOfDay": "sunset",
    },
    "world": {
        "biome": "forest",
        "nearbyEntities": [
            {"kind": "cow", "count": 3, "distanceMin": 7},
            {"kind": "sheep", "count": 1, "distanceMin": 12},
        ],
    },
}

THOUGHTS = (
    "The sun is setting over the forest; three cows graze to the east.",
    "Six oak logs in the pack. [GOAL: craft crafting_table 1]",
    "A diamond would change things. [GOAL: collect diamond 2]",
    "The sheep wandered a little closer.\nINTENT: none",
    "The sun is setting over the forest; three cows graze to the east.",
)


def load_demo(*, owner: Any) -> str | tuple[str, dict[str, str]]:
    """Idempotent: does nothing when the demo agent exists. The agent's API
    key, shown once, is returned beside the summary (``make demo`` prints it
    last, with the login)."""
    if Agent.objects.filter(name=DEMO_AGENT).exists():
        return f"agent {DEMO_AGENT} exists"
    # Recorded in the audit log as the demo's doing, so the log has its
    # first entry after `make demo`.
    created = agent_create(
        name=DEMO_AGENT,
        owner=owner,
        by=Actor(label="make demo", origin=COMMAND_LINE_ORIGIN),
    )
    agent = created.agent
    now = timezone.now() - timedelta(seconds=30)
    percept_record(agent=agent, document={"facts": FACTS}, now=now)
    thoughts_publish(
        agent=agent, items=[ThoughtInput(content=text) for text in THOUGHTS], now=now
    )
    keepalive_tick(agent_id=agent.pk, now=timezone.now())
    summary = (
        f"agent {DEMO_AGENT} with {agent.thoughts.count()} thoughts (its API key "
        "is printed at the end)"
    )
    return summary, {f"API key of agent {DEMO_AGENT}, scope stream": created.api_key}
