"""Batch configurations: validation, map resolution and per-episode configs.

``BatchConfig`` is the one typed batch config; ``BatchConfig.from_wire(doc)``
(``parse_batch_config``) and ``to_wire()`` are its wire pair (snake_case
fields, as stored with the batch and its run). ``parse_batch_config(doc)``
checks every field and raises ``SchemaInvalid`` with
one ``SchemaProblem`` per bad field (path = field name), so the HTTP layer can
answer 400 with the field and reason and the CLI can print them all. Episode
``i`` of a batch plays drift seed ``seed + i``; episodes are grouped in lanes of
``lane_size`` consecutive episodes, and the planner's map memory carries over
between the episodes of one lane only, so each lane can run on its own worker
and the result never depends on how the work was split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from gridworld.core.collector import collector_paused
from gridworld.core.episode import EpisodeConfig, EpisodeResult, run_episode
from gridworld.core.governor import GOVERNOR_KINDS
from gridworld.core.grid import (
    LAYOUTS,
    GridMap,
    generate_map,
    parse_map_text,
    standard_layout,
)
from gridworld.core.kernel import KernelParams
from gridworld.core.proposers import PROPOSER_KINDS
from gridworld.core.types import GridworldError, Q

MAX_EPISODES = 100_000
MAX_STEPS = 10_000
MAX_SEED = 2**31 - 1
DEFAULT_DRIFT_PERIOD = 10
DEFAULT_MAX_STEPS = 200
DEFAULT_BUDGET = 1000
DEFAULT_LANE_SIZE = 25
MAX_BUDGET = 1_000_000
MAX_LANE_SIZE = 1000
# The config's fields are snake_case (the run receipt's ``config`` and the
# stored batch use these names); input may spell the multi-word ones in
# camelCase as the rest of the API does. Both are accepted; problems name the
# snake_case field.
CAMEL_ALIASES = {
    "mapText": "map_text",
    "driftPeriod": "drift_period",
    "maxSteps": "max_steps",
    "laneSize": "lane_size",
}
GENERATED = re.compile(r"^generated:(\d{1,9}):(\d{1,2})x(\d{1,2})$")


@dataclass(frozen=True, slots=True)
class BatchConfig:
    map: GridMap
    episodes: int
    proposer: str = "planner"
    governor: str = "lexicographic"
    seed: int = 0
    drift_period: int = DEFAULT_DRIFT_PERIOD
    max_steps: int = DEFAULT_MAX_STEPS
    budget: int = DEFAULT_BUDGET
    lane_size: int = DEFAULT_LANE_SIZE

    @property
    def benchmark_name(self) -> str:
        return f"gridworld:{self.map.name}:{self.proposer}:{self.governor}"

    @classmethod
    def from_wire(cls, doc: Any) -> BatchConfig:
        """A validated config from its wire form (``parse_batch_config``)."""
        return parse_batch_config(doc)

    def to_wire(self) -> dict[str, Any]:
        """The wire form; ``from_wire(to_wire())`` gives the same config."""
        return {
            "map": self.map.name,
            "map_text": self.map.text(),
            "episodes": self.episodes,
            "proposer": self.proposer,
            "governor": self.governor,
            "seed": self.seed,
            "drift_period": self.drift_period,
            "max_steps": self.max_steps,
            "budget": self.budget,
            "lane_size": self.lane_size,
        }

    def episode_config(self, index: int, memory: str = "") -> EpisodeConfig:
        return EpisodeConfig(
            map=self.map,
            seed=self.seed + index,
            drift_period=self.drift_period,
            max_steps=self.max_steps,
            proposer=self.proposer,
            governor=self.governor,
            kernel=KernelParams(budget=self.budget * Q),
            initial_memory=memory,
        )


def resolve_map(spec: str, *, text: str | None = None) -> GridMap:
    """A layout name, ``generated:<seed>:<W>x<H>``, or ``text`` in the map format.

    Raises ``GridworldError`` (field ``map``) when nothing matches.
    """
    if text is not None:
        name = spec.strip() or "custom"
        if name in LAYOUTS or GENERATED.match(name):
            name = f"custom-{name}"
        return parse_map_text(text, name=name[:64])
    match = GENERATED.match(spec)
    if match:
        seed, width, height = (int(g) for g in match.groups())
        return generate_map(seed=seed, width=width, height=height)
    return standard_layout(spec)


def _int(
    doc: dict[str, Any],
    key: str,
    default: int,
    low: int,
    high: int,
    problems: list[SchemaProblem],
) -> int:
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        problems.append(SchemaProblem(key, "type", f"{key} must be an integer"))
        return default
    if not low <= value <= high:
        problems.append(
            SchemaProblem(key, "range", f"{key} must be between {low} and {high}")
        )
        return default
    return value


def _choice(
    doc: dict[str, Any],
    key: str,
    default: str,
    choices: tuple[str, ...],
    problems: list[SchemaProblem],
) -> str:
    value = doc.get(key, default)
    if value not in choices:
        problems.append(
            SchemaProblem(key, "enum", f"{key} must be one of {', '.join(choices)}")
        )
        return default
    return str(value)


def _snake_case(doc: dict[str, Any], problems: list[SchemaProblem]) -> dict[str, Any]:
    """``doc`` with camelCase aliases renamed; a field given in both
    spellings is a problem (on the snake_case name)."""
    renamed: dict[str, Any] = {}
    for key, value in doc.items():
        name = CAMEL_ALIASES.get(key, key)
        if name in renamed or (name != key and name in doc):
            # Exactly one of the two spellings gets here.
            camel = next(c for c, snake in CAMEL_ALIASES.items() if snake == name)
            problems.append(
                SchemaProblem(
                    name, "duplicate", f"{name} is given twice ({name} and {camel})"
                )
            )
            continue
        renamed[name] = value
    return renamed


def parse_batch_config(doc: Any) -> BatchConfig:
    """Validate a batch config document; every problem is reported at once."""
    if not isinstance(doc, dict):
        raise SchemaInvalid(
            "the config must be an object",
            problems=[SchemaProblem("$", "type", "expected a JSON object")],
        )
    problems: list[SchemaProblem] = []
    doc = _snake_case(doc, problems)
    known = {
        "map", "map_text", "episodes", "proposer", "governor", "seed",
        "drift_period", "max_steps", "budget", "lane_size",
    }  # fmt: skip
    for key in sorted(k for k in doc if k not in known):
        problems.append(SchemaProblem(str(key), "unknown", f"unknown field: {key}"))
    grid: GridMap | None = None
    spec, text = doc.get("map"), doc.get("map_text")
    if text is not None and not isinstance(text, str):
        problems.append(SchemaProblem("map_text", "type", "map_text must be a string"))
    elif spec is None and text is None:
        problems.append(SchemaProblem("map", "required", "map is required"))
    elif spec is not None and not isinstance(spec, str):
        problems.append(SchemaProblem("map", "type", "map must be a string"))
    else:
        try:
            grid = resolve_map(spec or "", text=text)
        except GridworldError as error:
            field = "map_text" if text is not None else "map"
            problems.append(SchemaProblem(field, "invalid", error.message))
    episodes = _int(doc, "episodes", 1, 1, MAX_EPISODES, problems)
    if "episodes" not in doc:
        problems.append(SchemaProblem("episodes", "required", "episodes is required"))
    proposer = _choice(doc, "proposer", "planner", PROPOSER_KINDS, problems)
    governor = _choice(doc, "governor", "lexicographic", GOVERNOR_KINDS, problems)
    seed = _int(doc, "seed", 0, 0, MAX_SEED, problems)
    drift = _int(doc, "drift_period", DEFAULT_DRIFT_PERIOD, 0, MAX_STEPS, problems)
    steps = _int(doc, "max_steps", DEFAULT_MAX_STEPS, 1, MAX_STEPS, problems)
    budget = _int(doc, "budget", DEFAULT_BUDGET, 1, MAX_BUDGET, problems)
    lane = _int(doc, "lane_size", DEFAULT_LANE_SIZE, 1, MAX_LANE_SIZE, problems)
    if seed + episodes > MAX_SEED:
        problems.append(
            SchemaProblem("seed", "range", "seed + episodes must stay < 2^31")
        )
    if problems or grid is None:
        raise SchemaInvalid("invalid gridworld batch config", problems=problems)
    return BatchConfig(
        map=grid,
        episodes=episodes,
        proposer=proposer,
        governor=governor,
        seed=seed,
        drift_period=drift,
        max_steps=steps,
        budget=budget,
        lane_size=lane,
    )


def run_cases(
    batch: BatchConfig, indices: list[int]
) -> list[tuple[int, EpisodeResult]]:
    """Play the episodes ``indices`` of ``batch`` (any subset, any order).

    Planner memory is rebuilt deterministically from the start of each lane, so
    a chunk gives the same episodes whichever other chunks ran, and running a
    chunk twice gives byte-identical receipts.
    """
    results: list[tuple[int, EpisodeResult]] = []
    with collector_paused():
        memory, next_index = "", -1
        for index in sorted(set(indices)):
            lane_start = index - index % batch.lane_size
            if batch.proposer != "planner":
                results.append((index, run_episode(batch.episode_config(index))))
                continue
            if not lane_start < next_index <= index:
                memory, next_index = "", lane_start
            while next_index < index:
                memory = run_episode(
                    batch.episode_config(next_index, memory)
                ).final_memory
                next_index += 1
            result = run_episode(batch.episode_config(index, memory))
            results.append((index, result))
            memory, next_index = result.final_memory, index + 1
        return results
