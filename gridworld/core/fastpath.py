"""Precomputed tables that make a governed step cheap, byte for byte the same.

This is the one production implementation of a governed step. A step's
receipt is fixed by the reference functions: ``env.state_hash``,
``env.observe``, ``Proposal.encode``, ``merkle.merkle_root`` and the reference
step kept as the tests' oracle (``tests/gridworld/oracle.py``: ``env_step``,
``step_work``, ``kernel_step``, ``gate_reasons`` and ``decide``; measured at
2x slower in ``bench/gridworld.py``). ``Episode.step`` does not call them per
step; it reads what they would return from tables built once and keeps every
byte identical because:

- ``MapTables`` (one per map and risk unit, cached) holds, for every cell, the
  5x5 patch ``observe`` would cut out (and, per position and goal met, the
  whole observation) and, for every action, the environment's
  verdict: where the agent lands (in place off the map or into a wall), the
  environment reason ``gate_reasons`` would give first, and the risk a move
  adds to exposure. These depend on the map alone, which never changes.
- ``decide_fast`` applies the kernel gates (admissibility, Lyapunov,
  absorption) to those verdicts with the same integer arithmetic and in the
  same order as ``gate_reasons``, and picks like ``decide``.
- ``proposal_set_info`` (cached per proposal tuple) holds each proposal's
  canonical encoding, its sha256 and the Merkle root over the encodings:
  proposal sets repeat across the steps and episodes of a batch. It also
  keeps the proposals part of the transition text per reasons tuple.
- ``transition`` (kept per map, kernel constants, governor and proposer in
  the dict ``transition_cache`` returns) is everything a step's receipt holds that does
  not depend on ``t`` or the chain: the decision, the kernel's next state and
  its hash, the reward, each proposal's receipt fields, the transition text
  and its sha256 (the part of the chain preimage that does not depend on
  ``t``, the position or the chain). It is a function of the proposal set,
  the position, the goal, the kernel state and the memory writes, which is
  its key: the steps of a batch's episodes repeat it about nine times in
  ten. It holds the step receipt as a template dict (a step copies it and
  fills in ``t``, the position, goal and chain) and the proposal dicts every
  step with it shares (receipts are read-only). For the planner, whose proposal
  tuples repeat as objects, ``Episode.step`` also keeps it under the tuple's
  identity, so that most steps never hash the five proposals.
- ``StateHasher`` hashes the constant prefix of the state JSON (drift seed,
  goal, grid) once per goal and finishes each state's hash from a copy with
  only the position and ``t``: sha256 over the same bytes as ``state_hash``
  (schema 1 receipts hold one per step; schema 2 only the initial one).

The golden receipt digests in the tests pin the bytes; equivalence tests
compare each table with the reference function it replaces.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from gridworld.core.env import (
    PATCH_RADIUS,
    REWARD_GOAL,
    REWARD_HAZARD,
    REWARD_STEP,
    Observation,
    grid_json,
    padded,
)
from gridworld.core.governor import (
    ABSORBED,
    HAZARD_COLLISION,
    INADMISSIBLE,
    LYAPUNOV_PREFIX,
    OUT_OF_BOUNDS,
    WALL_COLLISION,
    NoSafeAction,
)
from gridworld.core.kernel import (
    W_MEMORY_WRITE,
    W_MOVE,
    W_PROPOSE,
    W_REJECTED_ATTEMPT,
    KernelParams,
    KernelState,
    risk_table,
)
from gridworld.core.merkle import merkle_root
from gridworld.core.metrics import reason_family
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
    # Filled as episodes meet them: (position, goal) -> what a proposer sees.
    observations: dict[tuple[Position, Position], Observation]


# Observations kept per map (about 1 MB when full); the dict is emptied when
# full. A 400-episode hazard batch meets about 500.
OBSERVATIONS_MAX = 4096


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
    return MapTables(grid_json(cells), risks, patches, moves, {})


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
        """The proposals part of a step's transition text: each encoding, ``:``
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


class Transition(NamedTuple):
    """One step's outcome apart from ``t``, the position and the chain."""

    chosen: int
    action: str
    # Targets of the proposals refused by the kernel gates alone.
    refused: tuple[Position, ...]
    landing: Position
    reached: bool
    hazard: bool
    reward: int
    work: int
    b: int
    e: int
    distance: int
    kernel_digest: str
    chosen_digest: str
    root: str
    # The transition text (``receipt_text.transition_text``), its sha256 and
    # the chain preimage between ``t`` and the previous hash (schema 2).
    text: str
    digest: str
    link: str
    # Each proposal's receipt fields as a dict, shared by every step (of any
    # episode in the process) with this transition, as are the step's
    # ``decision`` list and its ``position`` and ``goal`` lists. Receipts are
    # read-only: copy one (``copy.deepcopy``) before editing it.
    decision: tuple[dict[str, Any], ...]
    # Whether the step is a safety violation of any kind (hazard entry,
    # inadmissible kernel state, negative budget): the rare case.
    violates: bool
    # Every reason of the decision by family (``metrics.reason_family``), in
    # order: what the episode metrics' ``rejected_by_reason`` counts.
    rejected: Reasons
    # The kernel's next state, ``(b, e)``.
    kernel: KernelState
    # The step receipt with every field that does not depend on ``t`` or the
    # chain (copied, then completed with those three, by ``Episode.step``).
    body: dict[str, Any]


def transition(
    proposals: tuple[Proposal, ...],
    moves: dict[str, Move],
    goal: Position,
    b: int,
    e: int,
    writes: int,
    *,
    governed: bool,
    params: KernelParams,
) -> Transition:
    """What ``Episode.step`` records for these inputs, except ``t``-bound parts.

    The same arithmetic as the reference ``step_work`` and ``kernel_step``
    after ``decide_fast``; the reward as the reference ``env_step`` gives it.
    """
    count = len(proposals)
    base_work = count * W_PROPOSE + writes * W_MEMORY_WRITE
    chosen, reasons, kernel_only = decide_fast(
        proposals,
        moves,
        governed=governed,
        b=b,
        e=e,
        e_max=params.e_max,
        decay=params.decay,
        move_work=base_work + W_MOVE,
        stay_work=base_work,
    )
    action = proposals[chosen].action
    move = moves[action]
    landing = move.landing
    reached = landing == goal
    if reached:
        reward = REWARD_GOAL
    elif move.hazard:
        reward = REWARD_HAZARD
    else:
        reward = REWARD_STEP
    work = base_work + (count - reasons.count(())) * W_REJECTED_ATTEMPT
    e_next = e - e // params.decay
    if action != STAY:
        work += W_MOVE
        e_next += move.risk
    b_next = b - min(b, work)
    kernel_digest = hashlib.sha256(f"b={b_next};e={e_next}".encode()).hexdigest()
    info = proposal_set_info(proposals)
    chosen_digest = info.digests[chosen]
    distance = abs(goal[0] - landing[0]) + abs(goal[1] - landing[1])
    text = (
        f"{kernel_digest}|{info.root}|{chosen}|{chosen_digest}|{action}|{reward}|"
        f"{distance}|{int(reached)}|{b_next}|{e_next}|{work}|{writes}|"
        f"{info.decision_text(reasons)}"
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    (lx, ly), (gx, gy) = landing, goal
    decision = tuple(
        [
            {
                "action": a,
                "target": [tx, ty],
                "landing": [px, py],
                "v_task": v_task,
                "score": score,
                "bonus": bonus,
                "reasons": [*r],
            }
            for (a, (tx, ty), (px, py), v_task, score, bonus), r in zip(
                proposals, reasons, strict=True
            )
        ]
    )
    return Transition(
        chosen,
        action,
        tuple([proposals[i].target for i in kernel_only]),
        landing,
        reached,
        move.hazard,
        reward,
        work,
        b_next,
        e_next,
        distance,
        kernel_digest,
        chosen_digest,
        info.root,
        text,
        digest,
        f"|{lx},{ly}|{gx},{gy}|{digest}|",
        decision,
        move.hazard or not (b_next >= 0 and 0 <= e_next <= params.e_max),
        tuple([reason_family(reason) for r in reasons for reason in r]),
        KernelState(b_next, e_next),
        {
            # A step receipt's fields in their order; None where the step
            # fills in its own value (``t`` and the chain).
            "step": None,
            "position": [lx, ly],
            "goal": [gx, gy],
            "kernel_state_hash": kernel_digest,
            "proposalset_root": info.root,
            "chosen_proposal_index": chosen,
            "chosen_proposal_hash": chosen_digest,
            "action_taken": action,
            "reward": reward,
            "task_performance": distance,
            "goal_reached": reached,
            "budget": b_next,
            "exposure": e_next,
            "work": work,
            "memory_writes": writes,
            "decision": [*decision],
            "prev_receipt_hash": None,
        },
    )


# Transitions kept per map, kernel constants and governor (about 2 KB each,
# some 18 MB when full); the dict is emptied when full. A batch of 400 hazard
# episodes makes about 900.
TRANSITIONS_MAX = 8192
TransitionKey = tuple[tuple["Proposal", ...], Position, Position, int, int, int]
# ``Episode.step`` also keeps ``(proposals, transition)`` under
# ``(id(proposals), goal, b, e, writes)`` for a proposer that reuses its
# tuples: the entry holds the tuple, so no other object takes that id while
# it is kept.


@lru_cache(maxsize=8)
def transition_cache(
    cells: Cells, params: KernelParams, governed: bool, proposer: str
) -> dict[tuple[object, ...], Any]:
    """The ``transition`` results of one map, kernel, governor and proposer
    (shared by its episodes). One proposer's transitions never serve
    another's, and a dict per proposer stays small, so its look-ups stay
    fast."""
    return {}


class StateHasher:
    """``env.state_hash`` with the constant prefix hashed once per goal."""

    def __init__(self, grid_text: str, drift_seed: int) -> None:
        self.grid_text = grid_text
        self.drift_seed = drift_seed
        # Per goal: the hash of the text up to the position (``prefix``).
        self.prefixes: dict[Position, hashlib._Hash] = {}

    def prefix(self, goal: Position) -> hashlib._Hash:
        """The hash of the state JSON up to ``"position": [`` (kept per goal;
        callers copy it before adding the rest)."""
        prefix = self.prefixes.get(goal)
        if prefix is None:
            text = (
                f'{{"drift_seed": {self.drift_seed}, "goal": [{goal[0]}, {goal[1]}], '
                f'"grid": {self.grid_text}, "position": ['
            )
            prefix = hashlib.sha256(text.encode("ascii"))
            self.prefixes[goal] = prefix
        return prefix

    def hexdigest(self, position: Position, goal: Position, t: int) -> str:
        digest = self.prefix(goal).copy()
        digest.update(f'{position[0]}, {position[1]}], "t": {t}}}'.encode("ascii"))
        return digest.hexdigest()
