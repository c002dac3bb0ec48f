"""stream.core.drive_tick: the drive tick's pure rules (no database)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stream.core.drive_tick import (
    DRIVE_TICK_INTERVAL_MS,
    DriveGoal,
    DriveInputs,
    DriveReason,
    build_goal_tag,
    check_drive_gates,
    decide_drive_tick,
    drive_tick_thought,
    select_drive,
)
from stream.core.planning import STUCK_PENDING_MS, OpenTask, TaskStatus

P = TaskStatus.PENDING
MIN = 60_000


# --- drive tick (the agency contract §3) ---------------------------------------------------------


def inputs(**overrides: Any) -> DriveInputs:
    values: dict[str, Any] = {
        "health": 20,
        "food": 20,
        "hostiles": 0,
        "game_mode": "survival",
        "now_ms": 10 * MIN,
        "last_tick_ms": None,
    }
    values.update(overrides)
    return DriveInputs(**values)


@pytest.mark.parametrize(
    ("overrides", "reason", "remaining"),
    [
        ({}, "passed", 0),
        ({"game_mode": None}, "passed", 0),
        ({"game_mode": "creative"}, "game_mode:creative", 0),
        ({"game_mode": "Spectator"}, "game_mode:spectator", 0),
        ({"health": 16}, "passed", 0),
        ({"health": 15.5}, "health_low", 0),
        ({"food": 15}, "food_low", 0),
        ({"hostiles": 1}, "hostiles_present", 0),
        ({"last_tick_ms": 10 * MIN - DRIVE_TICK_INTERVAL_MS + 1}, "interval", 1),
        ({"last_tick_ms": 10 * MIN - DRIVE_TICK_INTERVAL_MS}, "passed", 0),
    ],
)
def test_drive_gates(overrides: dict[str, Any], reason: str, remaining: int) -> None:
    gate = check_drive_gates(inputs(**overrides))
    assert (gate.passed, gate.reason, gate.remaining_ms) == (
        reason == "passed",
        reason,
        remaining,
    )


@given(
    st.sampled_from(["creative", "spectator", "CREATIVE", " spectator "]),
    st.floats(0, 20),
    st.floats(0, 20),
    st.integers(0, 5),
    st.one_of(st.none(), st.integers(0, 10 * MIN)),
)
def test_drive_tick_never_fires_in_creative_or_spectator(
    mode: str, health: float, food: float, hostiles: int, last: int | None
) -> None:
    decision = decide_drive_tick(
        inputs(
            game_mode=mode,
            health=health,
            food=food,
            hostiles=hostiles,
            last_tick_ms=last,
        ),
        inventory={},
        night_approaching=False,
        has_shelter=False,
        open_tasks=[],
    )
    assert decision.fire is False
    assert decision.reason == f"game_mode:{mode.strip().lower()}"


@given(
    st.sampled_from(["health", "food", "hostiles"]),
    st.floats(0, 15.99),
    st.integers(1, 50),
)
def test_drive_tick_never_fires_under_the_safety_gates(
    gate: str, low: float, hostiles: int
) -> None:
    values: dict[str, Any] = (
        {"hostiles": hostiles} if gate == "hostiles" else {gate: low}
    )
    decision = decide_drive_tick(
        inputs(**values),
        inventory={},
        night_approaching=False,
        has_shelter=False,
        open_tasks=[],
    )
    expected = {"health": "health_low", "food": "food_low"}.get(
        gate, "hostiles_present"
    )
    assert (decision.fire, decision.reason) == (False, expected)


@pytest.mark.parametrize(
    ("inventory", "night", "shelter", "expected"),
    [
        ({}, False, False, ("collect", "oak_log", 8, DriveReason.NO_LOGS)),
        ({"dirt": 3}, True, False, ("collect", "oak_log", 8, DriveReason.NO_LOGS)),
        (
            {"oak_log": 2},
            True,
            False,
            ("build", "basic_shelter", 1, DriveReason.NIGHT_NO_SHELTER),
        ),
        (
            {"oak_log": 2},
            True,
            True,
            ("craft", "crafting_table", 1, DriveReason.NO_CRAFTING_TABLE),
        ),
        (
            {"birch_log": 20, "crafting_table": 1},
            False,
            False,
            ("craft", "wooden_pickaxe", 1, DriveReason.NO_PICKAXE),
        ),
        (
            {"oak_log": 15, "crafting_table": 1, "stone_pickaxe": 1},
            False,
            False,
            ("collect", "oak_log", 8, DriveReason.LOW_LOG_STOCK),
        ),
        (
            {"oak_log": 16, "crafting_table": 1, "wooden_pickaxe": 1},
            False,
            False,
            ("explore", "nearby", 1, DriveReason.DEFAULT),
        ),
    ],
)
def test_drive_priority_list(
    inventory: dict[str, int],
    night: bool,
    shelter: bool,
    expected: tuple[str, str, int, DriveReason],
) -> None:
    goal = select_drive(inventory, night_approaching=night, has_shelter=shelter)
    assert (goal.action, goal.target, goal.amount, goal.reason) == expected


def test_drive_tick_suppressed_by_an_open_task_until_it_is_stuck() -> None:
    task = OpenTask(5, "collect:oak_log", P, 0, 0.0)
    young = decide_drive_tick(
        inputs(now_ms=STUCK_PENDING_MS - 1),
        inventory={},
        night_approaching=False,
        has_shelter=False,
        open_tasks=[task],
    )
    assert (young.fire, young.reason, young.suppressed_by) == (
        False,
        "duplicate_goal_key",
        5,
    )
    stuck = decide_drive_tick(
        inputs(now_ms=STUCK_PENDING_MS),
        inventory={},
        night_approaching=False,
        has_shelter=False,
        open_tasks=[task],
    )
    assert (stuck.fire, stuck.reason, stuck.goal_key) == (
        True,
        "no_logs",
        "collect:oak_log",
    )


def test_build_goal_tag() -> None:
    assert build_goal_tag("collect", "oak_log", 8) == "[GOAL: collect oak_log 8]"
    assert build_goal_tag("explore", "nearby", None) == "[GOAL: explore nearby]"


def test_drive_tick_output_shape() -> None:
    shape = drive_tick_thought(
        DriveGoal("build", "basic_shelter", 1, DriveReason.NIGHT_NO_SHELTER),
        goal_key="build:basic_shelter",
    )
    assert shape.content == (
        "Drive tick (night_no_shelter): [GOAL: build basic_shelter 1]"
    )
    assert shape.tags == ("drive-tick", "autonomous", "building")
    assert shape.metadata == {
        "source": "drive-tick",
        "cognitiveSystem": "drive-tick",
        "extractedGoalSource": "drive-tick",
        "extractedGoal": {
            "action": "build",
            "target": "basic_shelter",
            "targetId": None,
            "amount": 1,
            "raw": "[GOAL: build basic_shelter 1]",
        },
        "goalKey": "build:basic_shelter",
        "grounding": {
            "pass": True,
            "reason": "drive_tick",
            "category": None,
            "missing": [],
        },
        "novelty": "high",
        "convertEligible": True,
        "tags": ["drive-tick", "autonomous", "building"],
        "category": "building",
        "driveReason": "night_no_shelter",
    }
