"""The reference governed step: the oracle the production step is checked against.

``ReferenceEpisode`` plays a step the plain way, by calling the reference
functions of the core on every step: ``env.observe``, ``governor.decide``
(``gate_reasons`` per proposal), ``env.env_step``, ``kernel.step_work`` and
``kernel_step``, ``Proposal.encode``, ``merkle.merkle_root``, ``env.state_hash``
and ``kernel_hash``. Production (``gridworld.core.episode.Episode``) reads the
same answers from ``gridworld.core.fastpath``'s tables; the tests compare
whole generated episodes, receipt for receipt, and ``bench/gridworld.py``
times both in the same run.

Only tests and the bench import this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gridworld.core import config as config_module
from gridworld.core.collector import collector_paused
from gridworld.core.env import Observation, env_step, observe, state_hash
from gridworld.core.episode import Episode, EpisodeConfig, EpisodeResult, sha256_text
from gridworld.core.governor import (
    ABSORBED,
    HAZARD_COLLISION,
    OUT_OF_BOUNDS,
    WALL_COLLISION,
    decide,
)
from gridworld.core.kernel import (
    in_k,
    kernel_hash,
    kernel_step,
    risk_table,
    step_work,
)
from gridworld.core.merkle import merkle_root
from gridworld.core.types import HAZARD, STAY

ENV_OR_ABSORBED = (OUT_OF_BOUNDS, WALL_COLLISION, HAZARD_COLLISION, ABSORBED)


class ReferenceEpisode(Episode):
    """``Episode`` with the reference functions called on every step."""

    def __init__(self, config: EpisodeConfig) -> None:
        super().__init__(config)
        self.risks = risk_table(self.cells, self.params.risk_unit)

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
        self.done = reached or next_state.t >= self.max_steps
        return body


def reference_run_episode(config: EpisodeConfig) -> EpisodeResult:
    """``run_episode`` with the reference step."""
    with collector_paused():
        episode = ReferenceEpisode(config)
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
