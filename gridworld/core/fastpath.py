"""Precomputed tables that make a governed step cheap, byte for byte the same.

A step's receipt is fixed by the reference functions: ``env.state_hash``,
``env.observe``, ``env.env_step``, ``governor.gate_reasons`` and ``decide``,
``Proposal.encode`` and ``merkle.merkle_root``. ``Episode.step`` does not call
them per step; it reads what they would return from tables built once and
keeps every byte identical because:

- ``MapTables`` (one per map and risk unit, cached) holds, for every cell, the
  5x5 patch ``observe`` would cut out and, for every action, the environment's
  verdict: where the agent lands (in place off the map or into a wall), the
  environment reason ``gate_reasons`` would give first, and the risk a move
  adds to exposure. These depend on the map alone, which never changes.
- ``decide_fast`` applies the kernel gates (admissibility, Lyapunov,
  absorption) to those verdicts with the same integer arithmetic and in the
  same order as ``gate_reasons``, and picks like ``decide``.
- ``proposal_set_info`` (cached per proposal tuple) holds each proposal's
  canonical encoding, its sha256 and the Merkle root over the encodings:
  proposal sets repeat across the steps and episodes of a batch. It also
  keeps the proposals part of the chain preimage per reasons tuple.
- ``StateHasher`` hashes the constant prefix of the state JSON (drift seed,
  goal, grid) once per goal and finishes each state's hash from a copy with
  only the position and ``t``: sha256 over the same bytes as ``state_hash``.

The golden receipt digests in the tests pin the bytes; equivalence tests
compare each table with the reference function it replaces.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from gridworld.core.env import PATCH_RADIUS, grid_json, padded
from gridworld.core.governor import (
    ABSORBED,
    HAZARD_COLLISION,
    INADMISSIBLE,
    LYAPUNOV_PREFIX,
    OUT_OF_BOUNDS,
    WALL_COLLISION,
    NoSafeAction,
)
from gridworld.core.kernel import risk_table
from gridworld.core.merkle import merkle_root
from gridworld.core.types import ACTIONS, DELTAS, HAZARD, STAY, WALL, Cells, Position

if TYPE_CHECKING:
    from gridworld.core.proposers import Proposal

Reasons = tuple[str, ...]
Patch = tuple[tuple[int, ...], ...]


class Move(NamedTuple):
    """The environment's verdict on one action from one cell."""

    landing: Position
    env_reasons: Reasons
    risk: int
    hazard: bool


class MapTables(NamedTuple):
    grid_text: str
    risks: tuple[tuple[int, ...], ...]
    patches: dict[Position, Patch]
    moves: dict[Position, dict[str, Move]]


def _move(
    cells: Cells, risks: tuple[tuple[int, ...], ...], x: int, y: int, action: str
) -> Move:
    if action == STAY:
        return Move((x, y), (), 0, cells[y][x] == HAZARD)
    dx, dy = DELTAS[action]
    tx, ty = x + dx, y + dy
    if not (0 <= ty < len(cells) and 0 <= tx < len(cells[0])):
        reasons: Reasons = (OUT_OF_BOUNDS,)
    elif cells[ty][tx] == WALL:
        reasons = (WALL_COLLISION,)
    else:
        reasons = (HAZARD_COLLISION,) if cells[ty][tx] == HAZARD else ()
        x, y = tx, ty
    return Move((x, y), reasons, risks[y][x], cells[y][x] == HAZARD)


@lru_cache(maxsize=64)
def map_tables(cells: Cells, risk_unit: int) -> MapTables:
    """Every cell's patch and every action's verdict, for one map (cached)."""
    risks = risk_table(cells, risk_unit)
    frame = padded(cells)
    side = 2 * PATCH_RADIUS + 1
    patches: dict[Position, Patch] = {}
    moves: dict[Position, dict[str, Move]] = {}
    for y in range(len(cells)):
        for x in range(len(cells[0])):
            patches[(x, y)] = tuple(row[x : x + side] for row in frame[y : y + side])
            moves[(x, y)] = {a: _move(cells, risks, x, y, a) for a in ACTIONS}
    return MapTables(grid_json(cells), risks, patches, moves)


def decide_fast(
    proposals: tuple[Proposal, ...],
    moves: dict[str, Move],
    *,
    governed: bool,
    b: int,
    e: int,
    e_max: int,
    decay: int,
    move_work: int,
    stay_work: int,
) -> tuple[int, tuple[Reasons, ...], list[int]]:
    """``governor.decide`` on precomputed verdicts.

    Returns the chosen index, every proposal's reasons, and the indices of the
    proposals refused by the kernel gates alone (no environment reason, not
    absorption): the planner avoids those cells for the rest of the episode.
    """
    e_decayed = e - e // decay
    b_move = b - min(b, move_work)
    b_stay = b - min(b, stay_work)
    before = e + b
    absorbed = b <= 0
    all_reasons: list[Reasons] = []
    kernel_only: list[int] = []
    best = -1
    best_score = 0
    for index, proposal in enumerate(proposals):
        action = proposal.action
        move = moves[action]
        if action == STAY:
            e_next, b_next = e_decayed, b_stay
        else:
            e_next, b_next = e_decayed + move.risk, b_move
        after = e_next + b_next
        inadmissible = not (b_next >= 0 and 0 <= e_next <= e_max)
        refuse_absorbed = absorbed and action != STAY
        if inadmissible or after > before or refuse_absorbed:
            extra = [INADMISSIBLE] if inadmissible else []
            if after > before:
                extra.append(f"{LYAPUNOV_PREFIX}_{after}_{before}")
            if refuse_absorbed:
                extra.append(ABSORBED)
            reasons = move.env_reasons + tuple(extra)
            if not move.env_reasons and not refuse_absorbed:
                kernel_only.append(index)
        else:
            reasons = move.env_reasons
        all_reasons.append(reasons)
        if governed and reasons:
            continue
        if best < 0 or proposal.score > best_score:
            best, best_score = index, proposal.score
    if best < 0:
        raise NoSafeAction(
            "every proposal was rejected; Stay must always be admissible"
        )
    return best, tuple(all_reasons), kernel_only


# Preimage texts kept per proposal set (one per distinct reasons tuple).
DECISION_TEXTS_MAX = 8


class ProposalSetInfo(NamedTuple):
    codes: tuple[str, ...]
    digests: tuple[str, ...]
    root: str
    texts: dict[tuple[Reasons, ...], str]

    def decision_text(self, reasons: tuple[Reasons, ...]) -> str:
        """The proposals part of a step's chain preimage: each encoding, ``:``
        and its reasons, ``;``-separated (cached per reasons)."""
        text = self.texts.get(reasons)
        if text is None:
            text = ";".join(
                [f"{c}:{','.join(r)}" for c, r in zip(self.codes, reasons, strict=True)]
            )
            # Bounded: Lyapunov reasons carry numbers, so variants are many.
            if len(self.texts) < DECISION_TEXTS_MAX:
                self.texts[reasons] = text
        return text


@lru_cache(maxsize=16384)
def proposal_set_info(proposals: tuple[Proposal, ...]) -> ProposalSetInfo:
    """Encodings, their sha256 and the Merkle root of a proposal set (cached)."""
    encoded = tuple([p.encode() for p in proposals])
    return ProposalSetInfo(
        tuple([code.decode("ascii") for code in encoded]),
        tuple([hashlib.sha256(code).hexdigest() for code in encoded]),
        merkle_root(encoded),
        {},
    )


class StateHasher:
    """``env.state_hash`` with the constant prefix hashed once per goal."""

    def __init__(self, grid_text: str, drift_seed: int) -> None:
        self.grid_text = grid_text
        self.drift_seed = drift_seed
        self._prefixes: dict[Position, hashlib._Hash] = {}

    def hexdigest(self, position: Position, goal: Position, t: int) -> str:
        prefix = self._prefixes.get(goal)
        if prefix is None:
            text = (
                f'{{"drift_seed": {self.drift_seed}, "goal": [{goal[0]}, {goal[1]}], '
                f'"grid": {self.grid_text}, "position": ['
            )
            prefix = hashlib.sha256(text.encode("ascii"))
            self._prefixes[goal] = prefix
        digest = prefix.copy()
        digest.update(f'{position[0]}, {position[1]}], "t": {t}}}'.encode("ascii"))
        return digest.hexdigest()
