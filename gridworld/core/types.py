"""Constants and small value types shared by every gridworld core module.

Cells and actions follow the reference implementation of the benchmark, so
results can be cross-checked: cells EMPTY 0, WALL 1, HAZARD 2, GOAL 3 (the goal
lives in the state, never in the grid); actions in the fixed order N, S, E, W,
Stay with N = y-1, S = y+1, E = x+1, W = x-1.
"""

from __future__ import annotations

from core.errors import CoreError

EMPTY = 0
WALL = 1
HAZARD = 2
GOAL = 3

ACTIONS: tuple[str, ...] = ("N", "S", "E", "W", "Stay")
STAY = "Stay"
DELTAS: dict[str, tuple[int, int]] = {
    "N": (0, -1),
    "S": (0, 1),
    "E": (1, 0),
    "W": (-1, 0),
    "Stay": (0, 0),
}

# QFixed: integers scaled by one million stand for reals (1.0 == 1_000_000).
Q = 1_000_000

Position = tuple[int, int]
Cells = tuple[tuple[int, ...], ...]


class GridworldError(CoreError):
    """A gridworld configuration, map or receipt is not usable.

    ``field`` names the offending input (``map``, ``episodes``, ``steps[3]``...)
    so the HTTP and CLI layers can say which field and why.
    """

    code = "invalid"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, details={"field": field})
        self.field = field
