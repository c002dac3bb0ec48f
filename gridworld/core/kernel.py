"""The coherence kernel: budget, exposure, admissibility and a Lyapunov function.

Kernel state ``z = (b, e)`` in QFixed (1.0 == 1_000_000):

- ``b`` the metabolic budget. A step's work is ``W_MOVE`` when the action moves
  (Stay is the one zero-movement action) plus ``W_PROPOSE`` per proposal,
  ``W_MEMORY_WRITE`` per memory update and ``W_REJECTED_ATTEMPT`` per rejected
  proposal. The debit saturates: ``b' = b - min(b, work)``, so ``b >= 0``
  always and ``b = 0`` is absorbing (gate 4 then admits only Stay).
- ``e`` the hazard exposure: ``e' = e - e // decay + risk(p')`` after a move,
  ``e' = e - e // decay`` after Stay, where ``risk(p)`` is ``risk_unit`` times
  the hazards among the 8 neighbours of ``p``. Moving along hazards raises it.

Admissible set ``K = {b >= 0, 0 <= e <= e_max}``; Lyapunov function
``V(z) = e + b``: a move may raise exposure only by less than the work it pays
for, so risk must be bought with budget. Everything is integer arithmetic.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from gridworld.core.types import HAZARD, Cells, Q

W_MOVE = 1_000_000
W_PROPOSE = 500_000
W_MEMORY_WRITE = 100_000
W_REJECTED_ATTEMPT = 50_000


@dataclass(frozen=True, slots=True)
class KernelParams:
    """The kernel's constants; all of them go into a run's config hash.

    ``as_dict`` leaves ``budget`` out: the config carries it on its own.
    """

    budget: int = 1000 * Q
    e_max: int = 6 * Q
    risk_unit: int = 3 * Q // 2
    decay: int = 2

    def as_dict(self) -> dict[str, int]:
        return {
            "e_max": self.e_max,
            "risk_unit": self.risk_unit,
            "decay": self.decay,
            "w_move": W_MOVE,
            "w_propose": W_PROPOSE,
            "w_memory_write": W_MEMORY_WRITE,
            "w_rejected_attempt": W_REJECTED_ATTEMPT,
        }


class KernelState(NamedTuple):
    b: int
    e: int


@lru_cache(maxsize=64)
def risk_table(cells: Cells, risk_unit: int) -> tuple[tuple[int, ...], ...]:
    """``risk(p)`` for every cell: ``risk_unit`` per hazard among its 8 neighbours."""
    height, width = len(cells), len(cells[0])
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            count = 0
            for ny in range(max(0, y - 1), min(height, y + 2)):
                for nx in range(max(0, x - 1), min(width, x + 2)):
                    if (nx, ny) != (x, y) and cells[ny][nx] == HAZARD:
                        count += 1
            row.append(count * risk_unit)
        rows.append(tuple(row))
    return tuple(rows)


def lyapunov(state: KernelState) -> int:
    """``V(z) = e + b``; the governor never lets it increase."""
    return state.e + state.b


def kernel_hash(state: KernelState) -> str:
    return hashlib.sha256(f"b={state.b};e={state.e}".encode("ascii")).hexdigest()
