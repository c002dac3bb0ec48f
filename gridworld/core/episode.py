"""One governed episode, end to end, with its run receipt.

``run_episode(config)`` is a pure function of its config: the receipt it returns
(and the planner memory it ends with) is byte-identical in every process. The
receipt's run id is derived from the config hash, never drawn at random.

Receipts are written in schema version 2. Version 1 (each step also held the
state hash after it, and its chain preimage every field written out) is still
replayed by ``gridworld.core.episode_v1``, so stored receipts keep verifying.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field, replace
from functools import lru_cache
from hashlib import sha256
from typing import Any

from core.json_bytes import sorted_compact_json_text
from gridworld.core.collector import collector_paused
from gridworld.core.env import (
    GridState,
    Observation,
    drift_goal,
    state_hash,
)
from gridworld.core.fastpath import (
    OBSERVATIONS_MAX,
    TRANSITIONS_MAX,
    Transition,
    TransitionKey,
    map_tables,
    transition,
    transition_cache,
)
from gridworld.core.grid import GridMap
from gridworld.core.kernel import (
    KernelParams,
    KernelState,
    kernel_hash,
)
from gridworld.core.metrics import episode_metrics
from gridworld.core.proposers import make_proposer
from gridworld.core.receipt_text import (
    config_parts,
    memory_digest,
    run_hash_text,
    transition_text,
)
from gridworld.core.types import ACTIONS, GridworldError

# The version written; every version replay_verify accepts.
SCHEMA_VERSION = 2
SCHEMA_VERSIONS = (1, 2)
_new_state = tuple.__new__
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

    def __post_init__(self) -> None:
        # An action outside N, S, E, W, Stay would be played as Stay and the
        # receipt then refused by replay: refuse it here instead.
        for index, action in enumerate(self.actions):
            if action not in ACTIONS:
                raise GridworldError(
                    f"actions[{index}]",
                    f"unknown action {action!r}: actions must be N, S, E, W or Stay",
                )

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


@lru_cache(maxsize=64)
def _kernel_hash(budget: int) -> str:
    """The initial kernel state's hash (``b = budget``, ``e = 0``)."""
    return kernel_hash(KernelState(budget, 0))


def canonical(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 as is: the JSON that receipts hash.

    ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)``, written by orjson where its text is the same.
    """
    return sorted_compact_json_text(value)


def sha256_text(text: str) -> str:
    return sha256(text.encode("utf-8")).hexdigest()


def step_preimage(step: dict[str, Any]) -> str:
    """The text a step's ``receipt_hash`` is the sha256 of.

    Schema 2: ``step|x,y|gx,gy|sha256(transition text)|prev_receipt_hash``.
    Schema 1 (a step with ``gridworld_state_hash``): every field of the step
    except ``receipt_hash`` itself written out, the state hash after the
    position and goal. Cheaper than JSON, and just as binding.
    """
    x, y = step["position"]
    gx, gy = step["goal"]
    head = f"{step['step']}|{x},{y}|{gx},{gy}|"
    text = transition_text(step)
    if "gridworld_state_hash" in step:
        return (
            f"{head}{step['gridworld_state_hash']}|{text}|{step['prev_receipt_hash']}"
        )
    return f"{head}{sha256_text(text)}|{step['prev_receipt_hash']}"


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
    Its receipts are in schema version ``schema_version``.
    """

    schema_version = SCHEMA_VERSION

    def __init__(self, config: EpisodeConfig) -> None:
        grid = config.map
        self.config = config
        self.cells = grid.cells
        self.params = config.kernel
        self.tables = map_tables(self.cells, self.params.risk_unit)
        self.grid_text = self.tables.grid_text
        self.governed = config.governor == "lexicographic"
        self.transitions = transition_cache(
            self.cells, self.params, self.governed, config.proposer
        )
        # Whether the proposer hands out one tuple per distinct proposal set.
        self.interned = config.proposer == "planner"
        self.max_steps = config.max_steps
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
        self.initial_kernel_hash = _kernel_hash(self.params.budget)
        self.schedule: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []
        self.violations: list[str] = []
        # Each step's decision reasons by family, for the metrics.
        self.rejections: list[tuple[str, ...]] = []
        self.prev = GENESIS
        self.pending_writes = 0
        self.end = "max_steps"
        self.done = config.max_steps <= 0
        self._drift_checked = -1
        self._drift_period = config.drift_period
        self._append_step = self.steps.append

    def observation(self) -> Observation:
        state = self.state
        t = state.t
        if self._drift_checked != t:
            self._drift_checked = t
            # drift_due(t, period), inlined: this runs every step.
            period = self._drift_period
            if t > 0 and period > 0 and t % period == 0:
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
        key = (state.position, state.goal)
        seen = self.tables.observations
        obs = seen.get(key)
        if obs is None:
            (x, y), (gx, gy) = key
            patch = self.tables.patches[state.position]
            obs = Observation(patch, (gx - x, gy - y), abs(gx - x) + abs(gy - y))
            if len(seen) >= OBSERVATIONS_MAX:
                seen.clear()
            seen[key] = obs
        return obs

    def step(self, requested: str | None = None) -> dict[str, Any]:
        """Play one step and return its receipt (``done`` tells when to stop).

        Reads the environment's and the gates' verdicts from ``fastpath``
        tables instead of calling the reference functions, and what does not
        depend on ``t`` from a cached ``fastpath.transition``; the receipt is
        the same, byte for byte (see ``gridworld.core.fastpath``).
        """
        obs = self.observation()
        state = self.state
        proposer = self.proposer
        if requested is not None:
            proposer.request(requested)
        writes = proposer.observe(state, obs) + self.pending_writes
        b, e = self.kernel
        proposals = proposer.propose(state, obs, b)
        position, goal, t, drift_seed = state
        if self.interned:
            # Hashing the proposals costs more than the rest of the lookup:
            # the planner hands out the same tuple for the same proposals, so
            # look it up by identity first.
            alias = (id(proposals), goal, b, e, writes)
            hit = self.transitions.get(alias)
            if hit is not None and hit[0] is proposals:
                move = hit[1]
            else:
                key = (proposals, position, goal, b, e, writes)
                move = self._transition(key, alias)
        else:
            key = (proposals, position, goal, b, e, writes)
            move = self.transitions.get(key) or self._transition(key, None)
        (
            _,
            _,
            refused,
            landing,
            reached,
            hazard,
            _,
            _,
            b,
            e,
            _,
            _,
            _,
            _,
            _,
            _,
            link,
            _,
            violates,
            rejected,
            kernel,
            template,
        ) = move
        # Refusals by the kernel gates alone depend on the kernel state, not
        # the map: the planner avoids those cells for the rest of the episode.
        self.pending_writes = proposer.feedback(refused) if refused else 0
        if rejected:
            self.rejections.append(rejected)
        if violates:
            self._record_violations(t, hazard, b, e)
        prev = self.prev
        # The transition's fields are in place already (in receipt order).
        body: dict[str, Any] = template.copy()
        body["step"] = t
        body["prev_receipt_hash"] = prev
        # step_preimage(body): ``t``, the transition's link (position, goal
        # and the sha256 of its text, computed once per transition) and the
        # previous hash; the same text.
        preimage = f"{t}{link}{prev}"
        self.prev = body["receipt_hash"] = sha256(preimage.encode()).hexdigest()
        self._append_step(body)
        # GridState(landing, goal, t + 1, drift_seed), without the Python
        # frame of a NamedTuple's __new__ (a tenth of a step).
        self.state = _new_state(GridState, (landing, goal, t + 1, drift_seed))
        self.kernel = kernel
        if b == 0:
            self.end = "absorbed"
        if reached:
            self.end = "goal"
        self.done = reached or t + 1 >= self.max_steps
        return body

    def _transition(
        self, key: TransitionKey, alias: tuple[object, ...] | None
    ) -> Transition:
        """``fastpath.transition`` for a step's key, from the shared cache or
        computed and kept there, under ``alias`` too when given."""
        cache = self.transitions
        move = cache.get(key)
        if move is None:
            proposals, position, goal, b, e, writes = key
            move = transition(
                proposals,
                self.tables.moves[position],
                goal,
                b,
                e,
                writes,
                governed=self.governed,
                params=self.params,
            )
            if len(cache) >= TRANSITIONS_MAX:
                cache.clear()
            cache[key] = move
        if alias is not None:
            if len(cache) >= TRANSITIONS_MAX:
                cache.clear()
            # The entry holds the tuple: no other object takes its id meanwhile.
            cache[alias] = (key[0], move)
        return move

    def _record_violations(self, t: int, hazard: bool, b: int, e: int) -> None:
        if hazard:
            self.violations.append(f"step_{t}:hazard_entry")
        if not (b >= 0 and 0 <= e <= self.params.e_max):
            self.violations.append(f"step_{t}:kernel_inadmissible")
        if b < 0:
            self.violations.append(f"step_{t}:negative_budget")

    def rejected_by_reason(self) -> dict[str, int] | None:
        """The decisions' reasons by family, counted as the steps were played
        (``None``: the metrics count them from the step receipts)."""
        counts: dict[str, int] = {}
        for reasons in self.rejections:
            for reason in reasons:
                counts[reason] = counts.get(reason, 0) + 1
        return counts

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
        config_doc, config_json = config_parts(config)
        config_hash = sha256_text(config_json)
        params = self.params
        receipt: dict[str, Any] = {
            "schema_version": self.schema_version,
            "run_id": run_id_for(config_hash),
            "config": config_doc,
            "config_hash": config_hash,
            "initial_gridworld_hash": self.initial_gridworld_hash,
            "initial_kernel_state_hash": self.initial_kernel_hash,
            "drift_schedule": schedule,
            "steps": self.steps,
            "end": self.end,
            "chain_head": self.prev,
            "final_memory_hash": memory_digest(self.proposer.memory_text()),
            "violations": self.violations,
            "metrics": episode_metrics(
                config.map,
                self.steps,
                schedule,
                budget=params.budget,
                violations=self.violations,
                rejected=self.rejected_by_reason(),
            ),
        }
        receipt["run_hash"] = sha256_text(run_hash_text(receipt, config_json))
        return receipt


def run_episode(
    config: EpisodeConfig, *, episode_class: type[Episode] = Episode
) -> EpisodeResult:
    """Play one episode to its end and build its run receipt.

    The episode ends on the goal or at ``max_steps``; ``end`` says ``goal``,
    ``max_steps`` or ``absorbed`` (the budget reached 0 and stayed there: a
    governed agent then only Stays, which gate 4 shows on every step).
    ``episode_class``: ``Episode`` (schema 2) or ``EpisodeV1`` for replay.
    """
    if gc.isenabled():  # not already paused (a batch pauses it once)
        with collector_paused():
            return _play(config, episode_class)
    return _play(config, episode_class)


def _play(config: EpisodeConfig, episode_class: type[Episode]) -> EpisodeResult:
    episode = episode_class(config)
    step = episode.step
    while not episode.done:
        step()
    return EpisodeResult(episode.receipt(), episode.proposer.memory_text())
