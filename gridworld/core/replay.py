"""Offline verification of a run receipt: re-run it and compare everything.

``replay_verify(doc)`` rebuilds the episode config from the receipt, plays it
again and compares the whole document (run id, config, initial hashes, drift
schedule, every field of every step receipt, the hash chain, metrics,
violations, run hash). It reports the first divergence as (step, field,
expected, got); fields are compared in the receipt's order, so "first" means
the earliest step. Any changed value anywhere in the receipt fails. A receipt
is replayed in its own schema version (1 or 2, ``SCHEMA_VERSIONS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gridworld.core.collector import collector_paused
from gridworld.core.episode import (
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    Episode,
    EpisodeConfig,
    run_episode,
)
from gridworld.core.episode_v1 import EpisodeV1
from gridworld.core.grid import GridMap, parse_map_text
from gridworld.core.kernel import KernelParams
from gridworld.core.types import ACTIONS, GridworldError

# The longest episode a batch may ask for; an uploaded receipt claiming more
# is refused rather than replayed at length.
MAX_REPLAY_STEPS = 10_000

TOP_BEFORE_STEPS = (
    "schema_version",
    "run_id",
    "config",
    "config_hash",
    "initial_gridworld_hash",
    "initial_kernel_state_hash",
    "drift_schedule",
)


@dataclass(frozen=True, slots=True)
class Divergence:
    step: int | None
    field: str
    expected: Any
    got: Any


@dataclass(frozen=True, slots=True)
class Verification:
    ok: bool
    run_id: str
    steps_checked: int
    divergence: Divergence | None

    def as_dict(self) -> dict[str, Any]:
        divergence = None
        if self.divergence is not None:
            d = self.divergence
            divergence = {
                "step": d.step,
                "field": d.field,
                "expected": d.expected,
                "got": d.got,
            }
        return {
            "verified": self.ok,
            "run_id": self.run_id,
            "steps_checked": self.steps_checked,
            "divergence": divergence,
        }


_MISSING = "<missing>"


def _need(doc: dict[str, Any], key: str, kind: type, where: str = "config") -> Any:
    value = doc.get(key)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise GridworldError(f"{where}.{key}", f"{key} must be an integer")
    if not isinstance(value, kind):
        raise GridworldError(f"{where}.{key}", f"{key} must be a {kind.__name__}")
    return value


def _need_int(
    doc: dict[str, Any],
    key: str,
    low: int,
    where: str = "config",
    high: int | None = None,
) -> int:
    """An integer field of the config no smaller than ``low`` (and no larger
    than ``high`` when given; 64 bits is checked for every number before)."""
    value: int = _need(doc, key, int, where)
    if value < low or (high is not None and value > high):
        bound = f"at least {low}" if high is None else f"between {low} and {high}"
        raise GridworldError(f"{where}.{key}", f"{key} must be {bound}")
    return value


@lru_cache(maxsize=256)
def _parsed_map(text: str, name: str) -> GridMap:
    """``parse_map_text`` (cached: a batch's receipts share their map; the
    result is frozen, and a refusal raises each time)."""
    return parse_map_text(text, name=name)


def config_from_receipt(doc: dict[str, Any]) -> EpisodeConfig:
    """The episode config a receipt claims; ``GridworldError`` when unusable."""
    config = doc.get("config")
    if not isinstance(config, dict):
        raise GridworldError("config", "the receipt has no config object")
    grid_doc = _need(config, "map", dict)
    text, name = grid_doc.get("text"), grid_doc.get("name")
    if not isinstance(text, str) or not isinstance(name, str):
        raise GridworldError("config.map", "the map needs a name and its text")
    try:
        grid = _parsed_map(text, name)
    except GridworldError as error:
        raise GridworldError("config.map.text", error.message) from None
    kernel = _need(config, "kernel", dict)
    # Exposure starts at 0 and must stay within [0, e_max] with Stay always
    # admissible: a negative e_max or risk_unit cannot be replayed.
    params = KernelParams(
        budget=_need_int(config, "budget", 0),
        e_max=_need_int(kernel, "e_max", 0, "config.kernel"),
        risk_unit=_need_int(kernel, "risk_unit", 0, "config.kernel"),
        decay=_need_int(kernel, "decay", 1, "config.kernel"),
    )
    proposer = _need(config, "proposer", str)
    governor = _need(config, "governor", str)
    if proposer not in ("greedy", "planner", "external"):
        raise GridworldError("config.proposer", "unknown proposer")
    if governor not in ("lexicographic", "none"):
        raise GridworldError("config.governor", "unknown governor")
    actions: tuple[str, ...] = ()
    if proposer == "external":
        raw = _need(config, "actions", list)
        if any(a not in ACTIONS for a in raw):
            raise GridworldError("config.actions", "actions must be N, S, E, W or Stay")
        actions = tuple(raw)
    max_steps = _need_int(config, "max_steps", 0, high=MAX_REPLAY_STEPS)
    memory = _need(config, "initial_memory", str)
    if memory:
        rows = memory.split("\n")
        if len(rows) != grid.height or any(
            len(r) != grid.width or set(r) - set("?.#x") for r in rows
        ):
            raise GridworldError("config.initial_memory", "memory does not fit the map")
    return EpisodeConfig(
        map=grid,
        seed=_need_int(config, "seed", 0),
        drift_period=_need_int(config, "drift_period", 0),
        max_steps=max_steps,
        proposer=proposer,
        governor=governor,
        kernel=params,
        initial_memory=memory,
        actions=actions,
    )


def _first_difference(
    expected: Any, got: Any, path: str
) -> tuple[str, Any, Any] | None:
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in list(expected) + sorted(k for k in got if k not in expected):
            if key not in got:
                return f"{path}.{key}".lstrip("."), expected[key], _MISSING
            if key not in expected:
                return f"{path}.{key}".lstrip("."), _MISSING, got[key]
            found = _first_difference(expected[key], got[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(got, list):
        for index, (a, b) in enumerate(zip(expected, got, strict=False)):
            found = _first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(got):
            return f"{path}.length".lstrip("."), len(expected), len(got)
        return None
    if type(expected) is not type(got) or expected != got:
        return path.lstrip("."), expected, got
    return None


def replay_verify(doc: Any) -> Verification:
    """Re-run a receipt and report whether it is exactly what it says.

    Never raises on a bad document: an unusable config is a divergence at the
    ``config`` field (step ``None``).
    """
    if not isinstance(doc, dict):
        return Verification(
            False, "", 0, Divergence(None, "receipt", "object", type(doc).__name__)
        )
    raw_id = doc.get("run_id")
    run_id = raw_id if isinstance(raw_id, str) else ""
    version = doc.get("schema_version")
    if isinstance(version, bool) or version not in SCHEMA_VERSIONS:
        divergence = Divergence(None, "schema_version", SCHEMA_VERSION, version)
        return Verification(False, run_id, 0, divergence)
    try:
        config = config_from_receipt(doc)
    except GridworldError as error:
        return Verification(
            False,
            run_id,
            0,
            Divergence(None, error.field, "a valid config", error.message),
        )
    with collector_paused():
        episode_class = EpisodeV1 if version == 1 else Episode
        expected = run_episode(config, episode_class=episode_class).receipt
        same = expected == doc
    got_steps = doc.get("steps")
    checked = len(got_steps) if isinstance(got_steps, list) else 0
    if same:
        return Verification(True, run_id, len(expected["steps"]), None)
    for key in TOP_BEFORE_STEPS:
        found = _first_difference(
            {key: expected[key]}, {key: doc.get(key, _MISSING)}, ""
        )
        if found:
            return Verification(False, run_id, 0, Divergence(None, *found))
    if not isinstance(got_steps, list):
        return Verification(
            False, run_id, 0, Divergence(None, "steps", "a list", got_steps)
        )
    for index, step in enumerate(expected["steps"]):
        if index >= len(got_steps):
            return Verification(
                False,
                run_id,
                index,
                Divergence(
                    index, "steps.length", len(expected["steps"]), len(got_steps)
                ),
            )
        found = _first_difference(step, got_steps[index], "")
        if found:
            return Verification(False, run_id, index, Divergence(index, *found))
    found = _first_difference(expected, doc, "")
    assert found is not None
    return Verification(False, run_id, checked, Divergence(None, *found))
