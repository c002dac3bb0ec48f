"""One governed episode, end to end, with its run receipt.

``run_episode(config)`` is a pure function of its config: the receipt it returns
(and the planner memory it ends with) is byte-identical in every process. The
receipt's run id is derived from the config hash, never drawn at random.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from hashlib import sha256
from typing import Any

from gridworld.core.collector import collector_paused
from gridworld.core.env import (
    REWARD_GOAL,
    REWARD_HAZARD,
    REWARD_STEP,
    GridState,
    Observation,
    drift_due,
    drift_goal,
    state_hash,
)
from gridworld.core.fastpath import (
    StateHasher,
    decide_fast,
    map_tables,
    proposal_set_info,
)
from gridworld.core.grid import GridMap
from gridworld.core.kernel import (
    W_MEMORY_WRITE,
    W_MOVE,
    W_PROPOSE,
    W_REJECTED_ATTEMPT,
    KernelParams,
    KernelState,
    kernel_hash,
)
from gridworld.core.metrics import episode_metrics
from gridworld.core.proposers import make_proposer
from gridworld.core.types import STAY

SCHEMA_VERSION = 1
GENESIS = "0" * 64


@dataclass(frozen=True, slots=True)
class EpisodeConfig:
    """Everything an episode depends on; its hash is the run id."""

    map: GridMap
    seed: int
    drift_period: int = 25
    max_steps: int = 200
    proposer: str = "planner"
    governor: str = "lexicographic"
    kernel: KernelParams = field(default_factory=KernelParams)
    initial_memory: str = ""
    actions: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        grid = self.map
        extra = {"actions": list(self.actions)} if self.proposer == "external" else {}
        return {
            **extra,
            "map": {
                "name": grid.name,
                "width": grid.width,
                "height": grid.height,
                "text": grid.text(),
                "hash": grid.digest(),
            },
            "start": list(grid.start),
            "goal": list(grid.goal),
            "seed": self.seed,
            "drift_period": self.drift_period,
            "max_steps": self.max_steps,
            "budget": self.kernel.budget,
            "proposer": self.proposer,
            "governor": self.governor,
            "kernel": self.kernel.as_dict(),
            "initial_memory": self.initial_memory,
        }


# json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
# with the encoder built once instead of per call (the same text).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 as is: the JSON that receipts hash."""
    return _CANONICAL.encode(value)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def step_preimage(step: dict[str, Any]) -> str:
    """The text a step's ``receipt_hash`` is the sha256 of.

    Every field of the step except ``receipt_hash`` itself, ``|``-separated in a
    fixed order; each proposal as its canonical encoding followed by its
    rejection reasons. Cheaper than JSON, and just as binding.
    """
    proposals = ";".join(
        f"{p['action']}|{p['target'][0]},{p['target'][1]}|"
        f"{p['landing'][0]},{p['landing'][1]}|{p['v_task']}|{p['score']}|"
        f"{p['bonus']}:{','.join(p['reasons'])}"
        for p in step["decision"]
    )
    x, y = step["position"]
    gx, gy = step["goal"]
    return (
        f"{step['step']}|{x},{y}|{gx},{gy}|{step['gridworld_state_hash']}|"
        f"{step['kernel_state_hash']}|{step['proposalset_root']}|"
        f"{step['chosen_proposal_index']}|{step['chosen_proposal_hash']}|"
        f"{step['action_taken']}|{step['reward']}|{step['task_performance']}|"
        f"{int(step['goal_reached'])}|{step['budget']}|{step['exposure']}|"
        f"{step['work']}|{step['memory_writes']}|{proposals}|{step['prev_receipt_hash']}"
    )


def run_hash(receipt: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of the receipt without ``steps`` and
    ``run_hash``; the steps are bound through ``chain_head``."""
    rest = {k: v for k, v in receipt.items() if k not in ("steps", "run_hash")}
    return sha256_text(canonical(rest))


def run_id_for(config_hash: str) -> str:
    return f"gw-{config_hash[:24]}"


@dataclass(slots=True)
class EpisodeResult:
    receipt: dict[str, Any]
    final_memory: str


class Episode:
    """An episode played step by step; ``run_episode`` drives it to the end.

    ``observation()`` applies a goal drift due at the current step (once) and
    returns what the proposer sees; ``step(requested)`` plays one step (an
    external agent's action is the ``requested`` one) and appends its receipt.
    """

    def __init__(self, config: EpisodeConfig) -> None:
        grid = config.map
        self.config = config
        self.cells = grid.cells
        self.params = config.kernel
        self.tables = map_tables(self.cells, self.params.risk_unit)
        self.grid_text = self.tables.grid_text
        self.governed = config.governor == "lexicographic"
        self.hasher = StateHasher(self.grid_text, config.seed)
        self.proposer = make_proposer(
            config.proposer,
            width=grid.width,
            height=grid.height,
            b_max=self.params.budget,
            actions=config.actions,
        )
        self.proposer.start_episode(config.initial_memory)
        self.state = GridState(grid.start, grid.goal, 0, config.seed)
        self.kernel = KernelState(self.params.budget, 0)
        self.initial_gridworld_hash = state_hash(self.state, self.grid_text)
        self.initial_kernel_hash = kernel_hash(self.kernel)
        self.schedule: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self.prev = GENESIS
        self.pending_writes = 0
        self.end = "max_steps"
        self.done = config.max_steps <= 0
        self._drift_checked = -1

    def observation(self) -> Observation:
        state = self.state
        if self._drift_checked != state.t:
            self._drift_checked = state.t
            if drift_due(state.t, self.config.drift_period):
                drifted = drift_goal(self.cells, state)
                if drifted.goal != state.goal:
                    self.schedule.append(
                        {
                            "step": state.t,
                            "from": list(state.goal),
                            "to": list(drifted.goal),
                            "position": list(state.position),
                        }
                    )
                    self.state = drifted
        state = self.state
        (x, y), (gx, gy) = state.position, state.goal
        patch = self.tables.patches[state.position]
        return Observation(patch, (gx - x, gy - y), abs(gx - x) + abs(gy - y))

    def step(self, requested: str | None = None) -> dict[str, Any]:
        """Play one step and return its receipt (``done`` tells when to stop).

        Reads the environment's and the gates' verdicts from ``fastpath``
        tables instead of calling the reference functions; the receipt is the
        same, byte for byte (see ``gridworld.core.fastpath``).
        """
        obs = self.observation()
        state, kernel, params = self.state, self.kernel, self.params
        proposer = self.proposer
        if requested is not None:
            proposer.request(requested)
        writes = proposer.observe(state, obs) + self.pending_writes
        proposals = proposer.propose(state, obs, kernel.b)
        count = len(proposals)
        base_work = count * W_PROPOSE + writes * W_MEMORY_WRITE
        moves = self.tables.moves[state.position]
        chosen, reasons, kernel_only = decide_fast(
            proposals,
            moves,
            governed=self.governed,
            b=kernel.b,
            e=kernel.e,
            e_max=params.e_max,
            decay=params.decay,
            move_work=base_work + W_MOVE,
            stay_work=base_work,
        )
        action = proposals[chosen].action
        rejected = count - reasons.count(())
        move = moves[action]
        position = move.landing
        x, y = position
        gx, gy = goal = state.goal
        t = state.t
        reached = position == goal
        if reached:
            reward = REWARD_GOAL
        elif move.hazard:
            reward = REWARD_HAZARD
        else:
            reward = REWARD_STEP
        work = base_work + rejected * W_REJECTED_ATTEMPT
        e = kernel.e - kernel.e // params.decay
        if action != STAY:
            work += W_MOVE
            e += move.risk
        b = kernel.b - min(kernel.b, work)
        # Refusals by the kernel gates alone depend on the kernel state, not
        # the map: the planner avoids those cells for the rest of the episode.
        refused = tuple([proposals[i].target for i in kernel_only])
        self.pending_writes = proposer.feedback(refused) if refused else 0
        if move.hazard:
            self.violations.append(f"step_{t}:hazard_entry")
        if not (b >= 0 and 0 <= e <= params.e_max):
            self.violations.append(f"step_{t}:kernel_inadmissible")
        if b < 0:
            self.violations.append(f"step_{t}:negative_budget")
        info = proposal_set_info(proposals)
        state_digest = self.hasher.hexdigest(position, goal, t + 1)
        kernel_digest = sha256(f"b={b};e={e}".encode()).hexdigest()
        chosen_digest = info.digests[chosen]
        distance = abs(gx - x) + abs(gy - y)
        prev = self.prev
        body: dict[str, Any] = {
            "step": t,
            "position": [x, y],
            "goal": [gx, gy],
            "gridworld_state_hash": state_digest,
            "kernel_state_hash": kernel_digest,
            "proposalset_root": info.root,
            "chosen_proposal_index": chosen,
            "chosen_proposal_hash": chosen_digest,
            "action_taken": action,
            "reward": reward,
            "task_performance": distance,
            "goal_reached": reached,
            "budget": b,
            "exposure": e,
            "work": work,
            "memory_writes": writes,
            "decision": [
                {
                    "action": a,
                    "target": [tx, ty],
                    "landing": [lx, ly],
                    "v_task": v_task,
                    "score": score,
                    "bonus": bonus,
                    "reasons": list(r),
                }
                for (a, (tx, ty), (lx, ly), v_task, score, bonus), r in zip(
                    proposals, reasons, strict=True
                )
            ],
            "prev_receipt_hash": prev,
        }
        # step_preimage(body), built from the values at hand (same text).
        preimage = (
            f"{t}|{x},{y}|{gx},{gy}|{state_digest}|{kernel_digest}|{info.root}|"
            f"{chosen}|{chosen_digest}|{action}|{reward}|{distance}|{int(reached)}|"
            f"{b}|{e}|{work}|{writes}|{info.decision_text(reasons)}|{prev}"
        )
        self.prev = body["receipt_hash"] = sha256(preimage.encode()).hexdigest()
        self.steps.append(body)
        self.state = GridState(position, goal, t + 1, state.drift_seed)
        self.kernel = KernelState(b, e)
        if b == 0:
            self.end = "absorbed"
        if reached:
            self.end = "goal"
        self.done = reached or t + 1 >= self.config.max_steps
        return body

    def receipt(self) -> dict[str, Any]:
        """The run receipt of the steps played so far."""
        config = self.config
        schedule = self.schedule
        if config.proposer == "external":
            # An agent may stop early: the receipt then covers the steps played.
            played = len(self.steps)
            config = replace(
                config,
                actions=self.proposer.requested_actions(),
                max_steps=config.max_steps if self.done else played,
            )
            schedule = [shift for shift in schedule if shift["step"] < played]
        config_doc = config.as_dict()
        config_hash = sha256_text(canonical(config_doc))
        params = self.params
        receipt: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "run_id": run_id_for(config_hash),
            "config": config_doc,
            "config_hash": config_hash,
            "initial_gridworld_hash": self.initial_gridworld_hash,
            "initial_kernel_state_hash": self.initial_kernel_hash,
            "drift_schedule": schedule,
            "steps": self.steps,
            "end": self.end,
            "chain_head": self.prev,
            "final_memory_hash": sha256_text(self.proposer.memory_text()),
            "violations": self.violations,
            "metrics": episode_metrics(
                config.map,
                self.steps,
                schedule,
                budget=params.budget,
                violations=self.violations,
            ),
        }
        receipt["run_hash"] = run_hash(receipt)
        return receipt


def run_episode(config: EpisodeConfig) -> EpisodeResult:
    """Play one episode to its end and build its run receipt.

    The episode ends on the goal or at ``max_steps``; ``end`` says ``goal``,
    ``max_steps`` or ``absorbed`` (the budget reached 0 and stayed there: a
    governed agent then only Stays, which gate 4 shows on every step).
    """
    with collector_paused():
        episode = Episode(config)
        while not episode.done:
            episode.step()
        return EpisodeResult(episode.receipt(), episode.proposer.memory_text())
