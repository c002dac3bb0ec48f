"""Drive tick rules: when an idle agent gets a goal of its own, and which.

Decides, without I/O, the agency contract §3's opt-in drive tick: the safety gates
(§3.1), the priority list (§3.3), the idempotency check against open tasks
(§3.2, ``stream.core.planning``'s rule) and the thought it stores (§3.4).
Time arrives as ``now_ms``. Invariants:

- Gates, then priority list, then idempotency; the first failing gate is the
  reason, in a fixed order.
- It never fires in creative or spectator mode, with health or food below
  16, with hostiles around, or within ``DRIVE_TICK_INTERVAL_MS`` of the last
  tick.
- Its thought is convertEligible by construction (§4.3): a goal, its key and
  a ``drive_tick`` grounding pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from stream.core.goals import canonical_goal_key
from stream.core.planning import OpenTask, category_for, find_suppressor
from stream.core.thought_decision import ThoughtDecision, decision_to_wire
from stream.core.types import Goal, GroundingResult

DRIVE_TICK_INTERVAL_MS: Final = 180_000
DRIVE_MIN_HEALTH: Final = 16.0
DRIVE_MIN_FOOD: Final = 16.0
DRIVE_FORBIDDEN_MODES: Final = frozenset({"creative", "spectator"})
LOW_LOG_STOCK: Final = 16


@dataclass(frozen=True, slots=True)
class DriveInputs:
    """The drive tick's safety inputs; ``game_mode`` ``None`` means unknown."""

    health: float
    food: float
    hostiles: int
    game_mode: str | None
    now_ms: int
    last_tick_ms: int | None


@dataclass(frozen=True, slots=True)
class GateDecision:
    """``passed`` or the first failing gate's code; ``remaining_ms`` for the
    timer gate."""

    passed: bool
    reason: str
    remaining_ms: int = 0


def check_drive_gates(inputs: DriveInputs) -> GateDecision:
    """All of §3.1's gates, in order: game mode, health, food, hostiles, timer.

    Codes: ``game_mode:<mode>``, ``health_low``, ``food_low``,
    ``hostiles_present``, ``interval``; ``passed`` when all pass. An unknown
    game mode passes the mode gate, as the upstream agent's ``!==`` tests do.
    """
    mode = (inputs.game_mode or "").strip().lower()
    if mode in DRIVE_FORBIDDEN_MODES:
        return GateDecision(False, f"game_mode:{mode}")
    if inputs.health < DRIVE_MIN_HEALTH:
        return GateDecision(False, "health_low")
    if inputs.food < DRIVE_MIN_FOOD:
        return GateDecision(False, "food_low")
    if inputs.hostiles > 0:
        return GateDecision(False, "hostiles_present")
    if inputs.last_tick_ms is not None:
        elapsed = inputs.now_ms - inputs.last_tick_ms
        if elapsed < DRIVE_TICK_INTERVAL_MS:
            return GateDecision(False, "interval", DRIVE_TICK_INTERVAL_MS - elapsed)
    return GateDecision(True, "passed")


class DriveReason(StrEnum):
    NO_LOGS = "no_logs"
    NIGHT_NO_SHELTER = "night_no_shelter"
    NO_CRAFTING_TABLE = "no_crafting_table"
    NO_PICKAXE = "no_pickaxe"
    LOW_LOG_STOCK = "low_log_stock"
    DEFAULT = "default"


@dataclass(frozen=True, slots=True)
class DriveGoal:
    action: str
    target: str
    amount: int
    reason: DriveReason

    @property
    def category(self) -> str:
        return category_for(self.action)


def _log_count(inventory: Mapping[str, int]) -> int:
    return sum(n for item, n in inventory.items() if item.endswith("_log") and n > 0)


def select_drive(
    inventory: Mapping[str, int], *, night_approaching: bool, has_shelter: bool
) -> DriveGoal:
    """The first matching entry of §3.3's priority list.

    Logs are any ``*_log`` item; a pickaxe is any ``*_pickaxe``.
    """
    logs = _log_count(inventory)
    if logs == 0:
        return DriveGoal("collect", "oak_log", 8, DriveReason.NO_LOGS)
    if night_approaching and not has_shelter:
        return DriveGoal("build", "basic_shelter", 1, DriveReason.NIGHT_NO_SHELTER)
    if inventory.get("crafting_table", 0) <= 0:
        return DriveGoal("craft", "crafting_table", 1, DriveReason.NO_CRAFTING_TABLE)
    if not any(i.endswith("_pickaxe") and n > 0 for i, n in inventory.items()):
        return DriveGoal("craft", "wooden_pickaxe", 1, DriveReason.NO_PICKAXE)
    if logs < LOW_LOG_STOCK:
        return DriveGoal("collect", "oak_log", 8, DriveReason.LOW_LOG_STOCK)
    return DriveGoal("explore", "nearby", 1, DriveReason.DEFAULT)


@dataclass(frozen=True, slots=True)
class DriveTickDecision:
    """``fire`` with the goal and its key, or the reason it did not fire."""

    fire: bool
    reason: str
    goal: DriveGoal | None = None
    goal_key: str | None = None
    suppressed_by: int | None = None
    remaining_ms: int = 0


def decide_drive_tick(
    inputs: DriveInputs,
    *,
    inventory: Mapping[str, int],
    night_approaching: bool,
    has_shelter: bool,
    open_tasks: Iterable[OpenTask],
) -> DriveTickDecision:
    """Gates (§3.1), then selection (§3.3), then idempotency (§3.2).

    Reasons when not firing: a gate code, or ``duplicate_goal_key``.
    """
    gate = check_drive_gates(inputs)
    if not gate.passed:
        return DriveTickDecision(False, gate.reason, remaining_ms=gate.remaining_ms)
    goal = select_drive(
        inventory, night_approaching=night_approaching, has_shelter=has_shelter
    )
    goal_key = canonical_goal_key(goal.action, goal.target)
    blocker = find_suppressor(open_tasks, goal_key=goal_key, now_ms=inputs.now_ms)
    if blocker is not None:
        return DriveTickDecision(
            False, "duplicate_goal_key", goal, goal_key, blocker.task_id
        )
    return DriveTickDecision(True, goal.reason.value, goal, goal_key)


def build_goal_tag(action: str, target: str, amount: int | None) -> str:
    """The v1 goal tag text (buildGoalTagV1): ``[GOAL: collect oak_log 8]``."""
    inner = f"{action} {target}".strip()
    if amount is not None:
        inner = f"{inner} {amount}"
    return f"[GOAL: {inner}]"


@dataclass(frozen=True, slots=True)
class DriveTickThought:
    """A drive-tick thought in §3.4's shape, ready to be stored."""

    content: str
    goal_key: str
    tags: tuple[str, ...]
    metadata: dict[str, Any]
    decision: ThoughtDecision


DRIVE_TICK_SYSTEM: Final = "drive-tick"


def drive_tick_thought(goal: DriveGoal, *, goal_key: str) -> DriveTickThought:
    """§3.4: cognitiveSystem and extractedGoalSource ``drive-tick``, the goal
    via its v1 tag, tags ``drive-tick``, ``autonomous`` and the category, and
    a grounding pass with reason ``drive_tick`` (it is eligible by
    construction, §4.3). novelty high and convertEligible true are the store's
    columns."""
    raw = build_goal_tag(goal.action, goal.target, goal.amount)
    tags = (DRIVE_TICK_SYSTEM, "autonomous", goal.category)
    decision = ThoughtDecision(
        goal=Goal(goal.action, goal.target, None, goal.amount, raw),
        goal_key=goal_key,
        grounding=GroundingResult(True, "drive_tick", None, ()),
        convert_eligible=True,
        eligibility_reason="drive_tick",
    )
    metadata: dict[str, Any] = {
        "source": DRIVE_TICK_SYSTEM,
        "cognitiveSystem": DRIVE_TICK_SYSTEM,
        "extractedGoalSource": DRIVE_TICK_SYSTEM,
        **decision_to_wire(decision),
        "novelty": "high",
        "convertEligible": True,
        "tags": list(tags),
        "category": goal.category,
        "driveReason": goal.reason.value,
    }
    content = f"Drive tick ({goal.reason.value}): {raw}"
    return DriveTickThought(content, goal_key, tags, metadata, decision)
