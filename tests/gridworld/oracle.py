"""The reference governed step: the oracle the production step is checked against.

The reference functions live here, not in the core, since production no longer
calls them: the environment's step (``target_cell``, ``move``, ``env_step``),
the kernel's step (``step_work``, ``kernel_step``, ``in_k``) and the governor's
gates (``gate_reasons``, ``decide``). ``ReferenceEpisode`` plays a step the plain
way, calling them on every step with ``env.observe``, ``Proposal.encode``,
``merkle.merkle_root``, ``env.state_hash`` and ``kernel_hash``. Production (``gridworld.core.episode.Episode``) reads the
same answers from ``gridworld.core.fastpath``'s tables; the tests compare
whole generated episodes, receipt for receipt, and ``bench/gridworld.py``
times both in the same run.

Only tests and the bench import this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gridworld.core import config as config_module
from gridworld.core.collector import collector_paused
from gridworld.core.env import (
    REWARD_GOAL,
    REWARD_HAZARD,
    REWARD_STEP,
    GridState,
    Observation,
    observe,
    state_hash,
)
from gridworld.core.episode import Episode, EpisodeConfig, EpisodeResult, sha256_text
from gridworld.core.episode_v1 import EpisodeV1
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
    kernel_hash,
    risk_table,
)
from gridworld.core.merkle import merkle_root
from gridworld.core.proposers import Proposal
from gridworld.core.types import DELTAS, HAZARD, STAY, WALL, Cells, Position

ENV_OR_ABSORBED = (OUT_OF_BOUNDS, WALL_COLLISION, HAZARD_COLLISION, ABSORBED)

# --- the environment's step ---------------------------------------------------


def target_cell(cells: Cells, position: Position, action: str) -> tuple[Position, int]:
    """The cell an action aims at and its content (WALL when out of bounds)."""
    dx, dy = DELTAS[action]
    x, y = position[0] + dx, position[1] + dy
    if 0 <= y < len(cells) and 0 <= x < len(cells[0]):
        return (x, y), cells[y][x]
    return (x, y), WALL


def move(cells: Cells, position: Position, action: str) -> Position:
    """Where the agent ends up: in place when the target is a wall or off the map."""
    target, cell = target_cell(cells, position, action)
    return position if cell == WALL else target


def env_step(cells: Cells, state: GridState, action: str) -> tuple[GridState, int]:
    """One step: the next state and the reward (+100 goal, -50 hazard, -1 else)."""
    position = move(cells, state.position, action)
    if position == state.goal:
        reward = REWARD_GOAL
    elif cells[position[1]][position[0]] == HAZARD:
        reward = REWARD_HAZARD
    else:
        reward = REWARD_STEP
    return GridState(position, state.goal, state.t + 1, state.drift_seed), reward


# --- the kernel's step --------------------------------------------------------


def step_work(action: str, *, proposals: int, memory_writes: int, rejected: int) -> int:
    """The metabolic work of one step (QFixed) before saturation at ``b``."""
    work = proposals * W_PROPOSE + memory_writes * W_MEMORY_WRITE
    work += rejected * W_REJECTED_ATTEMPT
    if action != STAY:
        work += W_MOVE
    return work


def kernel_step(
    state: KernelState,
    action: str,
    landing: Position,
    risks: tuple[tuple[int, ...], ...],
    *,
    work: int,
    decay: int,
) -> KernelState:
    """The kernel state after a step ending on ``landing`` that cost ``work``."""
    e = state.e - state.e // decay
    if action != STAY:
        e += risks[landing[1]][landing[0]]
    return KernelState(state.b - min(state.b, work), e)


def in_k(state: KernelState, params: KernelParams) -> bool:
    """Admissibility: non-negative budget and exposure within ``[0, e_max]``."""
    return state.b >= 0 and 0 <= state.e <= params.e_max


# --- the governor's gates -----------------------------------------------------


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


# --- the reference episode ----------------------------------------------------


class ReferenceEpisode(Episode):
    """``Episode`` with the reference functions called on every step; its
    receipts are in ``schema_version`` (the state hash after each step is
    computed for both, and kept in the step for version 1)."""

    def __init__(self, config: EpisodeConfig) -> None:
        super().__init__(config)
        self.risks = risk_table(self.cells, self.params.risk_unit)

    def rejected_by_reason(self) -> dict[str, int] | None:
        return None  # the metrics count the reasons from the step receipts

    def observation(self) -> Observation:
        super().observation()  # applies a drift due now (once), as production does
        return observe(self.cells, self.state)

    def step(self, requested: str | None = None) -> dict[str, Any]:
        obs = self.observation()
        state, kernel, cells = self.state, self.kernel, self.cells
        proposer = self.proposer
        if requested is not None:
            proposer.request(requested)
        writes = proposer.observe(state, obs) + self.pending_writes
        proposals = proposer.propose(state, obs, kernel.b)
        count = len(proposals)
        decision = decide(
            proposals,
            governor=self.config.governor,
            cells=cells,
            position=state.position,
            kernel=kernel,
            params=self.params,
            risks=self.risks,
            move_work=step_work("N", proposals=count, memory_writes=writes, rejected=0),
            stay_work=step_work(
                STAY, proposals=count, memory_writes=writes, rejected=0
            ),
        )
        chosen = proposals[decision.chosen]
        action = chosen.action
        next_state, reward = env_step(cells, state, action)
        work = step_work(
            action, proposals=count, memory_writes=writes, rejected=decision.rejected
        )
        kernel = kernel_step(
            kernel,
            action,
            next_state.position,
            self.risks,
            work=work,
            decay=self.params.decay,
        )
        self.pending_writes = proposer.feedback(
            tuple(
                p.target
                for p, reasons in zip(proposals, decision.reasons, strict=True)
                if reasons and not any(r in ENV_OR_ABSORBED for r in reasons)
            )
        )
        t = state.t
        x, y = next_state.position
        if cells[y][x] == HAZARD:
            self.violations.append(f"step_{t}:hazard_entry")
        if not in_k(kernel, self.params):
            self.violations.append(f"step_{t}:kernel_inadmissible")
        if kernel.b < 0:
            self.violations.append(f"step_{t}:negative_budget")
        gx, gy = next_state.goal
        reached = next_state.position == next_state.goal
        encoded = tuple([p.encode() for p in proposals])
        body: dict[str, Any] = {
            "step": t,
            "position": [x, y],
            "goal": [gx, gy],
            "gridworld_state_hash": state_hash(next_state, self.grid_text),
            "kernel_state_hash": kernel_hash(kernel),
            "proposalset_root": merkle_root(encoded),
            "chosen_proposal_index": decision.chosen,
            "chosen_proposal_hash": hashlib.sha256(
                encoded[decision.chosen]
            ).hexdigest(),
            "action_taken": action,
            "reward": reward,
            "task_performance": abs(gx - x) + abs(gy - y),
            "goal_reached": reached,
            "budget": kernel.b,
            "exposure": kernel.e,
            "work": work,
            "memory_writes": writes,
            "decision": [
                {
                    "action": p.action,
                    "target": list(p.target),
                    "landing": list(p.landing),
                    "v_task": p.v_task,
                    "score": p.score,
                    "bonus": p.bonus,
                    "reasons": list(reasons),
                }
                for p, reasons in zip(proposals, decision.reasons, strict=True)
            ],
            "prev_receipt_hash": self.prev,
        }
        transition = (
            f"{body['kernel_state_hash']}|{body['proposalset_root']}|"
            f"{decision.chosen}|{body['chosen_proposal_hash']}|{action}|{reward}|"
            f"{body['task_performance']}|{int(reached)}|{kernel.b}|{kernel.e}|"
            f"{work}|{writes}|"
            + ";".join(
                f"{code.decode('ascii')}:{','.join(reasons)}"
                for code, reasons in zip(encoded, decision.reasons, strict=True)
            )
        )
        if self.schema_version == 1:
            preimage = (
                f"{t}|{x},{y}|{gx},{gy}|{body['gridworld_state_hash']}|"
                f"{transition}|{self.prev}"
            )
        else:
            del body["gridworld_state_hash"]
            preimage = f"{t}|{x},{y}|{gx},{gy}|{sha256_text(transition)}|{self.prev}"
        self.prev = sha256_text(preimage)
        body["receipt_hash"] = self.prev
        self.steps.append(body)
        self.state, self.kernel = next_state, kernel
        if kernel.b == 0:
            self.end = "absorbed"
        if reached:
            self.end = "goal"
        self.done = reached or next_state.t >= self.max_steps
        return body


class ReferenceEpisodeV1(ReferenceEpisode):
    """The reference step writing schema version 1 receipts."""

    schema_version = 1


def reference_run_episode(
    config: EpisodeConfig, episode_class: type[ReferenceEpisode] = ReferenceEpisode
) -> EpisodeResult:
    """``run_episode`` with the reference step (``ReferenceEpisodeV1``:
    schema version 1)."""
    with collector_paused():
        episode = episode_class(config)
        while not episode.done:
            episode.step()
        return EpisodeResult(episode.receipt(), episode.proposer.memory_text())


@contextmanager
def reference_steps() -> Iterator[None]:
    """Within the block, ``gridworld.core.config.run_cases`` plays episodes
    with the reference step (tests and the bench only)."""
    production = getattr(config_module, "run_episode")  # noqa: B009
    setattr(config_module, "run_episode", reference_run_episode)  # noqa: B010
    try:
        yield
    finally:
        setattr(config_module, "run_episode", production)  # noqa: B010


@contextmanager
def schema_v1_episodes() -> Iterator[None]:
    """Within the block, ``gridworld.core.config.run_cases`` writes schema
    version 1 receipts (``EpisodeV1``, what replay plays for them)."""
    production = getattr(config_module, "run_episode")  # noqa: B009

    def run_v1(config: EpisodeConfig) -> EpisodeResult:
        return production(config, episode_class=EpisodeV1)

    setattr(config_module, "run_episode", run_v1)  # noqa: B010
    try:
        yield
    finally:
        setattr(config_module, "run_episode", production)  # noqa: B010
