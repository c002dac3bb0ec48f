"""The receipt's hashed texts written from parts equal the canonical JSON."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gridworld.core.config import BatchConfig, run_cases
from gridworld.core.episode import EpisodeConfig, canonical, run_episode
from gridworld.core.grid import GridMap, parse_map_text, standard_layout
from gridworld.core.receipt_text import config_text, run_hash_text

ODD_NAMES = [
    "hazard",
    'quote " and back\\slash',
    "naïve 地图 ✓",
    "tab\tnew\nline\x01",
    "\x00memory\x00",  # a stand-in itself: the frame is refused, text still equal
    "\x00seed\x00",
]


def _grid(name: str) -> GridMap:
    base = standard_layout("hazard")
    return GridMap(name, base.cells, base.start, base.goal)


@pytest.mark.parametrize("name", ODD_NAMES)
@pytest.mark.parametrize("proposer", ["planner", "greedy"])
def test_config_text_is_the_canonical_json_of_the_config(
    name: str, proposer: str
) -> None:
    config = EpisodeConfig(map=_grid(name), seed=7, proposer=proposer)
    for memory, seed in [("", 7), ("?.#\nx..", 8), ('"\\\n\x02é', 2**31 - 2)]:
        episode = replace(config, seed=seed, initial_memory=memory)
        assert config_text(episode) == canonical(episode.as_dict())


def test_config_text_of_an_external_agent_carries_its_actions() -> None:
    config = EpisodeConfig(
        map=standard_layout("simple"), seed=3, proposer="external", actions=("N", "E")
    )
    assert config_text(config) == canonical(config.as_dict())
    assert '"actions":["N","E"]' in config_text(config)


@pytest.mark.parametrize(
    ("grid", "proposer", "governor"),
    [
        (standard_layout("hazard"), "planner", "lexicographic"),
        (standard_layout("maze"), "greedy", "none"),
        (parse_map_text("S.x\n..G\n", name="tiny ✓"), "planner", "none"),
    ],
)
def test_run_hash_text_is_the_canonical_json_of_the_receipt_without_steps(
    grid: GridMap, proposer: str, governor: str
) -> None:
    batch = BatchConfig(
        map=grid, episodes=6, seed=11, proposer=proposer, governor=governor,
        drift_period=4, budget=40,
    )  # fmt: skip
    for _, result in run_cases(batch, list(range(6))):
        receipt = result.receipt
        rest = {k: v for k, v in receipt.items() if k not in ("steps", "run_hash")}
        assert run_hash_text(receipt, canonical(receipt["config"])) == canonical(rest)


def test_an_external_agents_receipt_hashes_the_same_text() -> None:
    config = EpisodeConfig(
        map=standard_layout("hazard"), seed=5, proposer="external",
        actions=("S", "S", "E", "W", "Stay"), max_steps=5,
    )  # fmt: skip
    receipt = run_episode(config).receipt
    rest = {k: v for k, v in receipt.items() if k not in ("steps", "run_hash")}
    assert run_hash_text(receipt, canonical(receipt["config"])) == canonical(rest)
