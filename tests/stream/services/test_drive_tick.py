"""The opt-in drive tick (the agency contract §3) through the services and the poll."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from stream.models import Task, Thought
from stream.services.counters import counters_get
from stream.services.drive_tick import (
    DRIVE_TICK_TYPE,
    drive_tick,
    drive_tick_from_latest,
)
from stream.services.planning import planning_cycle
from stream.services.planning_task_executor import task_claim, task_complete
from stream.services.thoughts import percept_record

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 2, 3, 12, 0, tzinfo=timezone.UTC)
IDLE_LINE = (
    "[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active=0, eligible=0)"
)


def perceive_at(agent: Any, facts: dict[str, Any], at: datetime) -> None:
    percept_record(agent=agent, document={"facts": facts}, now=at)


def drive_thoughts(agent: Any) -> list[Thought]:
    return list(Thought.objects.filter(agent=agent, type=DRIVE_TICK_TYPE))


def test_drive_tick_is_off_by_default(
    agent: Any, calm_facts: dict[str, Any], log_lines: Any
) -> None:
    from django.conf import settings

    assert settings.DRIVE_TICK_ENABLED is False
    perceive_at(agent, calm_facts, T0)
    for minute in range(0, 12, 3):
        planning_cycle(agent_id=agent.pk, now=T0 + timedelta(minutes=minute))
    assert drive_thoughts(agent) == []
    assert Task.objects.count() == 0
    assert counters_get(agent=agent).drive_ticks == 0
    assert log_lines("[Planning]") == [IDLE_LINE] * 4


def test_enabled_drive_tick_emits_the_seed_shape_and_the_poll_converts_it(
    agent: Any, calm_facts: dict[str, Any], settings: Any
) -> None:
    settings.DRIVE_TICK_ENABLED = True
    perceive_at(agent, calm_facts, T0)

    result = planning_cycle(agent_id=agent.pk, now=T0)

    (thought,) = drive_thoughts(agent)
    assert (thought.convert_eligible, thought.grounding_passed, thought.novelty) == (
        True,
        True,
        "high",
    )
    assert (thought.source, thought.goal_key, thought.eligibility_reason) == (
        "drive-tick",
        "craft:crafting_table",
        "drive_tick",
    )
    assert thought.metadata["cognitiveSystem"] == "drive-tick"
    assert thought.metadata["extractedGoalSource"] == "drive-tick"
    assert thought.metadata["extractedGoal"]["raw"] == "[GOAL: craft crafting_table 1]"
    assert thought.metadata["tags"] == ["drive-tick", "autonomous", "crafting"]
    assert thought.metadata["grounding"]["pass"] is True
    assert counters_get(agent=agent).drive_ticks == 1
    assert result is not None
    assert (result.fetched, result.converted, result.acked) == (1, 1, 1)
    task = Task.objects.get()
    assert (task.thought_id, task.goal_key, task.origin_name) == (
        thought.pk,
        "craft:crafting_table",
        "drive-tick",
    )
    thought.refresh_from_db()
    assert thought.processed is True


def test_drive_tick_waits_180_seconds_between_ticks(
    agent: Any, calm_facts: dict[str, Any]
) -> None:
    perceive_at(agent, calm_facts, T0)
    first = drive_tick_from_latest(agent=agent, game_mode="survival", now=T0)
    early = drive_tick_from_latest(
        agent=agent, game_mode="survival", now=T0 + timedelta(seconds=179)
    )
    due = drive_tick_from_latest(
        agent=agent, game_mode="survival", now=T0 + timedelta(seconds=180)
    )
    assert (first.fired, early.fired, early.reason, early.due) == (
        True,
        False,
        "interval",
        False,
    )
    assert (due.fired, due.due) == (True, True)
    assert counters_get(agent=agent).drive_ticks == 2


def test_pending_task_suppresses_the_next_tick_until_it_is_stuck(
    agent: Any, calm_facts: dict[str, Any], settings: Any
) -> None:
    settings.DRIVE_TICK_ENABLED = True
    perceive_at(agent, calm_facts, T0)
    planning_cycle(agent_id=agent.pk, now=T0)
    suppressed = drive_tick_from_latest(
        agent=agent, game_mode="survival", now=T0 + timedelta(minutes=4)
    )
    planning_cycle(agent_id=agent.pk, now=T0 + timedelta(minutes=5))

    assert (suppressed.fired, suppressed.reason) == (False, "duplicate_goal_key")
    keys = list(Task.objects.order_by("pk").values_list("goal_key", "status"))
    assert keys == [
        ("craft:crafting_table", "pending"),
        ("craft:crafting_table", "pending"),
    ]


def test_active_task_with_progress_keeps_suppressing(
    agent: Any, calm_facts: dict[str, Any], settings: Any
) -> None:
    from stream.services.planning_task_executor import task_progress

    settings.DRIVE_TICK_ENABLED = True
    perceive_at(agent, calm_facts, T0)
    planning_cycle(agent_id=agent.pk, now=T0)
    task = task_claim(agent=agent, executor="ex", now=T0)
    assert task is not None
    task_progress(agent=agent, task_id=task.pk, executor="ex", progress=0.1, now=T0)

    late = drive_tick_from_latest(
        agent=agent, game_mode="survival", now=T0 + timedelta(minutes=30)
    )
    assert (late.fired, late.reason) == (False, "duplicate_goal_key")
    assert Task.objects.count() == 1


@pytest.mark.parametrize("mode", ["creative", "spectator"])
def test_drive_tick_never_fires_in_creative_or_spectator(
    agent: Any, calm_facts: dict[str, Any], settings: Any, mode: str
) -> None:
    settings.DRIVE_TICK_ENABLED = True
    settings.DRIVE_TICK_GAME_MODE = mode
    perceive_at(agent, calm_facts, T0)
    for minute in range(0, 15, 3):
        planning_cycle(agent_id=agent.pk, now=T0 + timedelta(minutes=minute))
    assert drive_thoughts(agent) == []
    assert counters_get(agent=agent).drive_ticks == 0
    assert Task.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"health": 15}, "health_low"),
        ({"hunger": 10}, "food_low"),
        (
            {
                "entities": [
                    {"kind": "zombie", "count": 1, "distanceMin": 9, "hostile": True}
                ]
            },
            "hostiles_present",
        ),
    ],
)
def test_drive_tick_never_fires_under_the_safety_gates(
    agent: Any, calm_facts: dict[str, Any], change: dict[str, Any], reason: str
) -> None:
    facts = copy.deepcopy(calm_facts)
    if "entities" in change:
        facts["world"]["nearbyEntities"] = change["entities"]
    else:
        facts["bot"].update(change)
    perceive_at(agent, facts, T0)
    outcome = drive_tick_from_latest(agent=agent, game_mode="survival", now=T0)
    assert (outcome.fired, outcome.reason) == (False, reason)
    assert drive_thoughts(agent) == []
    assert counters_get(agent=agent).drive_ticks == 0


def test_no_percept_no_tick(agent: Any) -> None:
    outcome = drive_tick_from_latest(agent=agent, game_mode="survival", now=T0)
    assert (outcome.fired, outcome.reason) == (False, "no_percept")


def test_shelter_at_sunset_until_a_shelter_task_completed(
    agent: Any, calm_facts: dict[str, Any]
) -> None:
    facts = copy.deepcopy(calm_facts)
    facts["bot"]["timeOfDay"] = "sunset"
    perceive_at(agent, facts, T0)
    first = drive_tick_from_latest(agent=agent, game_mode="survival", now=T0)
    assert first.goal_key == "build:basic_shelter"

    from stream.services.planning import planning_poll_once

    planning_poll_once(agent=agent, now=T0)
    task = task_claim(agent=agent, executor="ex", now=T0)
    assert task is not None
    task_complete(agent=agent, task_id=task.pk, executor="ex", now=T0)
    second = drive_tick(
        agent=agent,
        now=T0 + timedelta(minutes=3),
        game_mode="survival",
        health=20,
        food=20,
        hostiles=0,
        inventory={"oak_log": 4},
        night_approaching=True,
    )
    assert second.goal_key == "craft:crafting_table"


@pytest.mark.parametrize(
    ("mode", "fired"), [("creative", False), ("spectator", False), ("survival", True)]
)
def test_drive_tick_game_mode_gate_reads_the_percept(
    agent: Any, agent_client: Any, mode: str, fired: bool
) -> None:
    """bot.gameMode is accepted in a percept and wins over the global setting."""
    facts = {
        "bot": {
            "position": {"x": 0, "y": 64, "z": 0},
            "health": 20,
            "hunger": 20,
            "inventorySummary": [],
            "timeOfDay": "day",
            "gameMode": mode,
        },
        "world": {"biome": "plains", "nearbyEntities": []},
    }
    response = agent_client.post(
        "/api/cognitive-stream/percepts", {"facts": facts}, format="json"
    )
    assert response.status_code == 201, response.json()
    outcome = drive_tick_from_latest(agent=agent, game_mode="survival")
    assert outcome.fired is fired
    if not fired:
        assert outcome.reason == f"game_mode:{mode}"
