"""Governors: which proposal is executed, and why every other one was not.

``lexicographic`` filters, never weighs: (1) environment safety (off the map,
wall, hazard), (2) admissibility of the predicted kernel state, (3) Lyapunov
non-increase, (4) absorption (at ``b = 0`` only the zero-work Stay); then the
highest score among the survivors wins, ties to the first in action order.
Every gate runs on every proposal, so each proposal carries all its reasons.
Stay always survives, so a step never lacks an action.

``none`` executes the proposer's favourite unchecked; it records the reasons
the lexicographic gates would have given, and is the baseline that shows the
safety counters are live.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridworld.core.kernel import KernelParams, KernelState
from gridworld.core.proposers import Proposal
from gridworld.core.types import DELTAS, HAZARD, STAY, WALL, Cells, Position

GOVERNOR_KINDS = ("lexicographic", "none")

OUT_OF_BOUNDS = "env:out_of_bounds"
WALL_COLLISION = "env:wall_collision"
HAZARD_COLLISION = "env:hazard_collision"
INADMISSIBLE = "kernel:inadmissible"
LYAPUNOV_PREFIX = "coh:lyapunov_increase"
ABSORBED = "abs:absorbed"


class NoSafeAction(AssertionError):
    """Raised if every proposal is rejected: impossible while Stay is proposed."""


@dataclass(frozen=True, slots=True)
class Decision:
    chosen: int
    reasons: tuple[tuple[str, ...], ...]

    @property
    def rejected(self) -> int:
        return sum(1 for reasons in self.reasons if reasons)


def gate_reasons(
    action: str,
    cells: Cells,
    position: Position,
    kernel: KernelState,
    params: KernelParams,
    risks: tuple[tuple[int, ...], ...],
    work: int,
) -> tuple[str, ...]:
    """Every gate's verdict on one action, in gate order (empty: admissible).

    The predicted kernel state follows ``kernel.kernel_step`` exactly: exposure
    decays and a move adds the risk of the cell it lands on; the budget is
    debited ``min(b, work)``.
    """
    reasons: list[str] = []
    x, y = position
    b, e = kernel.b, kernel.e
    e_next = e - e // params.decay
    if action != STAY:
        dx, dy = DELTAS[action]
        tx, ty = x + dx, y + dy
        if not (0 <= ty < len(cells) and 0 <= tx < len(cells[0])):
            reasons.append(OUT_OF_BOUNDS)
        else:
            cell = cells[ty][tx]
            if cell == WALL:
                reasons.append(WALL_COLLISION)
            else:
                if cell == HAZARD:
                    reasons.append(HAZARD_COLLISION)
                x, y = tx, ty
        e_next += risks[y][x]
    b_next = b - min(b, work)
    if not (b_next >= 0 and 0 <= e_next <= params.e_max):
        reasons.append(INADMISSIBLE)
    before, after = e + b, e_next + b_next
    if after > before:
        reasons.append(f"{LYAPUNOV_PREFIX}_{after}_{before}")
    if b <= 0 and action != STAY:
        reasons.append(ABSORBED)
    return tuple(reasons)


def decide(
    proposals: tuple[Proposal, ...],
    *,
    governor: str,
    cells: Cells,
    position: Position,
    kernel: KernelState,
    params: KernelParams,
    risks: tuple[tuple[int, ...], ...],
    move_work: int,
    stay_work: int,
) -> Decision:
    """Gate every proposal and choose one (see the module docstring)."""
    all_reasons = tuple(
        gate_reasons(
            p.action,
            cells,
            position,
            kernel,
            params,
            risks,
            stay_work if p.action == STAY else move_work,
        )
        for p in proposals
    )
    best = -1
    governed = governor == "lexicographic"
    for index, proposal in enumerate(proposals):
        if governed and all_reasons[index]:
            continue
        if best < 0 or proposal.score > proposals[best].score:
            best = index
    if best < 0:
        raise NoSafeAction(
            "every proposal was rejected; Stay must always be admissible"
        )
    return Decision(best, all_reasons)
