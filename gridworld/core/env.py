"""The deterministic hazard gridworld: observation, goal drift, state hash.

A step's environment verdicts (where the agent lands, the reward) are read
from ``gridworld.core.fastpath``'s per-map tables; the plain reference step
(``env_step``) is the tests' oracle in ``tests/gridworld/oracle.py``.

Compatible with the benchmark's reference implementation: out-of-bounds moves and
moves into a wall leave the agent in place; hazards are enterable (keeping the
agent out is the governor's job); reward +100 on the goal, -50 on a hazard, -1
otherwise; ``t`` grows by one per step. Same inputs give the same outputs.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import NamedTuple

from gridworld.core.types import EMPTY, WALL, Cells, Position

PATCH_RADIUS = 2
REWARD_GOAL = 100
REWARD_HAZARD = -50
REWARD_STEP = -1

LCG_A = 1103515245
LCG_C = 12345
LCG_M = 2**31
DRIFT_DRAWS = 100
DRIFT_SEED_STRIDE = 1_000_000


class GridState(NamedTuple):
    """Where the agent and the goal are, at step ``t`` of an episode."""

    position: Position
    goal: Position
    t: int
    drift_seed: int


class Observation(NamedTuple):
    """What the proposer sees besides the state: a 5x5 patch and the goal beacon."""

    patch: tuple[tuple[int, ...], ...]
    goal_delta: tuple[int, int]
    distance: int


@lru_cache(maxsize=64)
def grid_json(cells: Cells) -> str:
    """The grid as ``json.dumps`` writes nested lists (default separators)."""
    return json.dumps([list(row) for row in cells])


def state_hash(state: GridState, grid_text: str) -> str:
    """sha256 of the JSON of ``{position, goal, grid, t, drift_seed}``.

    Sorted keys and Python's default separators, as the reference hashes its
    state; ``grid_text`` is ``grid_json(cells)``, computed once per map.
    """
    x, y = state.position
    gx, gy = state.goal
    text = (
        f'{{"drift_seed": {state.drift_seed}, "goal": [{gx}, {gy}], '
        f'"grid": {grid_text}, "position": [{x}, {y}], "t": {state.t}}}'
    )
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@lru_cache(maxsize=64)
def padded(cells: Cells) -> Cells:
    """The grid framed by ``PATCH_RADIUS`` rows and columns of WALL."""
    side = (WALL,) * PATCH_RADIUS
    width = len(cells[0]) + 2 * PATCH_RADIUS
    frame = tuple((WALL,) * width for _ in range(PATCH_RADIUS))
    return frame + tuple(side + row + side for row in cells) + frame


def observe(cells: Cells, state: GridState) -> Observation:
    """The 5x5 patch centred on the agent (off-map reads WALL) and the beacon."""
    x, y = state.position
    rows = padded(cells)[y : y + 2 * PATCH_RADIUS + 1]
    patch = tuple(row[x : x + 2 * PATCH_RADIUS + 1] for row in rows)
    gx, gy = state.goal
    return Observation(patch, (gx - x, gy - y), abs(gx - x) + abs(gy - y))


def drift_due(t: int, drift_period: int) -> bool:
    """Drift happens at every step ``t > 0`` that is a multiple of the period."""
    return drift_period > 0 and t > 0 and t % drift_period == 0


def drift_goal(cells: Cells, state: GridState) -> GridState:
    """Move the goal with the reference's LCG, seeded ``drift_seed*1e6 + t``.

    Each draw advances the LCG and proposes ``x = s % W, y = (s // W) % H``; the
    first EMPTY cell within 100 draws wins, otherwise the goal stays. A draw on
    the agent's own cell cancels the drift.
    """
    height, width = len(cells), len(cells[0])
    s = state.drift_seed * DRIFT_SEED_STRIDE + state.t
    goal = state.goal
    for _ in range(DRIFT_DRAWS):
        s = (LCG_A * s + LCG_C) % LCG_M
        x, y = s % width, (s // width) % height
        if cells[y][x] == EMPTY:
            goal = (x, y)
            break
    if goal == state.position:
        return state
    return GridState(state.position, goal, state.t, state.drift_seed)
