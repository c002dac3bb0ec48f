"""One governed episode, end to end, with its run receipt.

``run_episode(config)`` is a pure function of its config: the receipt it returns
(and the planner memory it ends with) is byte-identical in every process. The
receipt's run id is derived from the config hash, never drawn at random.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any

from gridworld.core.env import (
    GridState,
    Observation,
    drift_due,
    drift_goal,
    env_step,
    grid_json,
    observe,
    state_hash,
)
from gridworld.core.governor import (
    ABSORBED,
    HAZARD_COLLISION,
    OUT_OF_BOUNDS,
    WALL_COLLISION,
    decide,
)
from gridworld.core.grid import GridMap
from gridworld.core.kernel import (
    KernelParams,
    KernelState,
    in_k,
    kernel_hash,
    kernel_step,
    risk_table,
    step_work,
)
from gridworld.core.merkle import merkle_root
from gridworld.core.metrics import episode_metrics
from gridworld.core.proposers import make_proposer
from gridworld.core.types import HAZARD, STAY

SCHEMA_VERSION = 1
GENESIS = "0" * 64
# Refusals that depend on the kernel state, not on the map: the planner avoids
# those cells for the rest of the episode.
ENV_OR_ABSORBED = (OUT_OF_BOUNDS, WALL_COLLISION, HAZARD_COLLISION, ABSORBED)


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


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
        self.grid_text = grid_json(self.cells)
        self.risks = risk_table(self.cells, self.params.risk_unit)
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
        return observe(self.cells, self.state)

    def step(self, requested: str | None = None) -> dict[str, Any]:
        """Play one step and return its receipt (``done`` tells when to stop)."""
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
        rejected = decision.rejected
        next_state, reward = env_step(cells, state, action)
        work = step_work(
            action, proposals=count, memory_writes=writes, rejected=rejected
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
        # step_preimage(body), built from the values at hand (same text).
        preimage = (
            f"{t}|{x},{y}|{gx},{gy}|{body['gridworld_state_hash']}|"
            f"{body['kernel_state_hash']}|{body['proposalset_root']}|"
            f"{decision.chosen}|{body['chosen_proposal_hash']}|{action}|{reward}|"
            f"{body['task_performance']}|{int(reached)}|{kernel.b}|{kernel.e}|"
            f"{work}|{writes}|"
            + ";".join(
                f"{code.decode('ascii')}:{','.join(reasons)}"
                for code, reasons in zip(encoded, decision.reasons, strict=True)
            )
            + f"|{self.prev}"
        )
        self.prev = sha256_text(preimage)
        body["receipt_hash"] = self.prev
        self.steps.append(body)
        self.state, self.kernel = next_state, kernel
        if kernel.b == 0:
            self.end = "absorbed"
        if reached:
            self.end = "goal"
        self.done = reached or next_state.t >= self.config.max_steps
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
    episode = Episode(config)
    while not episode.done:
        episode.step()
    return EpisodeResult(episode.receipt(), episode.proposer.memory_text())
