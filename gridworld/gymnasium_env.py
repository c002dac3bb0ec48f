"""A Gymnasium environment over the governed gridworld, receipts included.

Plug any RL agent in: ``reset(seed=)`` starts an episode whose goal drift is
seeded by ``seed``; ``step(action)`` takes an index into N, S, E, W, Stay and
returns the usual 5-tuple; ``info["cost"]`` is 1 on a step that entered a
hazard (for constrained RL), ``info["receipt"]`` the step's receipt. With
``shield=True`` the lexicographic governor refuses unsafe actions (the agent
then Stays); without it the agent's action is executed as is. ``receipt()``
returns the run receipt, which ``replay_verify`` checks offline.

Needs ``gymnasium`` (the ``bench`` extra or the dev dependencies); the
gridworld core itself never imports it.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from gridworld.core.config import MAX_SEED, resolve_map
from gridworld.core.env import Observation, observe
from gridworld.core.episode import Episode, EpisodeConfig
from gridworld.core.grid import GridMap
from gridworld.core.kernel import KernelParams
from gridworld.core.types import ACTIONS, HAZARD, Q

ObsDict = dict[str, np.ndarray]


class GridworldEnv(gymnasium.Env[ObsDict, np.int64]):
    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        map: str | GridMap = "hazard",
        *,
        drift_period: int = 10,
        max_steps: int = 200,
        budget: int = 1000,
        shield: bool = False,
        render_mode: str | None = None,
    ) -> None:
        self.grid = map if isinstance(map, GridMap) else resolve_map(map)
        self.drift_period = drift_period
        self.max_steps = max_steps
        self.budget = budget
        self.shield = shield
        self.render_mode = render_mode
        span = max(self.grid.width, self.grid.height)
        self.action_space = spaces.Discrete(len(ACTIONS))
        self.observation_space = spaces.Dict(
            {
                "patch": spaces.Box(0, 3, shape=(5, 5), dtype=np.int64),
                "goal_delta": spaces.Box(-span, span, shape=(2,), dtype=np.int64),
                "distance": spaces.Box(0, 2 * span, shape=(1,), dtype=np.int64),
            }
        )
        self._episode: Episode | None = None

    def _obs(self, obs: Observation) -> ObsDict:
        return {
            "patch": np.array(obs.patch, dtype=np.int64),
            "goal_delta": np.array(obs.goal_delta, dtype=np.int64),
            "distance": np.array([obs.distance], dtype=np.int64),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        super().reset(seed=seed)
        drift_seed = (
            seed if seed is not None else int(self.np_random.integers(MAX_SEED))
        )
        config = EpisodeConfig(
            map=self.grid,
            seed=drift_seed,
            drift_period=self.drift_period,
            max_steps=self.max_steps,
            proposer="external",
            governor="lexicographic" if self.shield else "none",
            kernel=KernelParams(budget=self.budget * Q),
        )
        self._episode = Episode(config)
        return self._obs(self._episode.observation()), {"drift_seed": drift_seed}

    def step(
        self, action: np.int64 | int
    ) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        if self._episode is None or self._episode.done:
            raise RuntimeError("call reset() before step()")
        if not self.action_space.contains(action):
            # Gymnasium's convention: an action outside the space is an error,
            # never silently mapped (-1 would index Stay).
            raise ValueError(
                f"action {action!r} is not in the action space {self.action_space} "
                "(0 N, 1 S, 2 E, 3 W, 4 Stay)"
            )
        episode = self._episode
        receipt = episode.step(ACTIONS[int(action)])
        x, y = receipt["position"]
        info = {
            "cost": 1.0 if self.grid.cells[y][x] == HAZARD else 0.0,
            "receipt": receipt,
            "budget": receipt["budget"],
        }
        terminated = bool(receipt["goal_reached"])
        truncated = episode.done and not terminated
        # No drift after the last step: the receipt ends where the episode did.
        seen = observe(self.grid.cells, episode.state) if episode.done else None
        obs = self._obs(seen or episode.observation())
        return obs, float(receipt["reward"]), terminated, truncated, info

    def receipt(self) -> dict[str, Any]:
        """The run receipt of the current episode so far."""
        if self._episode is None:
            raise RuntimeError("call reset() first")
        return self._episode.receipt()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._episode is None:
            return None
        state = self._episode.state
        rows = [
            list(row) for row in self.grid.text().replace("S", ".").split("\n")[:-1]
        ]
        gx, gy = state.goal
        rows[gy][gx] = "G"
        x, y = state.position
        rows[y][x] = "A"
        return "\n".join("".join(row) for row in rows) + "\n"
