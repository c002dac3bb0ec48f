"""Schema version 1 receipts keep verifying after version 2.

``EpisodeV1`` (what replay plays for a version 1 receipt) writes exactly what
the reference step writes in version 1, over many seeds; receipts stored
before version 2 (``tests/gridworld/fixtures/v1_*.json``, written by the
version 1 code) replay as verified, and a change to one is still caught.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gridworld.core.config import BatchConfig, run_cases
from gridworld.core.episode import SCHEMA_VERSION, EpisodeConfig, run_episode
from gridworld.core.episode_v1 import EpisodeV1
from gridworld.core.grid import GridMap, generate_map, standard_layout
from gridworld.core.replay import replay_verify
from tests.gridworld.oracle import (
    ReferenceEpisodeV1,
    reference_run_episode,
    schema_v1_episodes,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
STORED = sorted(FIXTURES.glob("v1_*.json"))
MAPS = [
    standard_layout("hazard"),
    standard_layout("maze"),
    generate_map(seed=11, width=9, height=6),
]
# The fields version 1 has and version 2 has not, or computes otherwise.
CHAIN_FIELDS = {"prev_receipt_hash", "receipt_hash", "gridworld_state_hash"}
RUN_FIELDS = {"schema_version", "steps", "chain_head", "run_hash"}


def _stored(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_stored_version_1_receipts_are_version_1() -> None:
    assert len(STORED) == 3
    assert SCHEMA_VERSION == 2
    for path in STORED:
        receipt = _stored(path)
        assert receipt["schema_version"] == 1
        assert all("gridworld_state_hash" in step for step in receipt["steps"])


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.stem)
def test_a_stored_version_1_receipt_replays_as_verified(path: Path) -> None:
    receipt = _stored(path)

    verdict = replay_verify(receipt)

    assert (verdict.ok, verdict.divergence) == (True, None)
    assert verdict.steps_checked == len(receipt["steps"])


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.stem)
def test_a_changed_state_hash_in_a_stored_version_1_receipt_is_caught(
    path: Path,
) -> None:
    receipt = _stored(path)
    original = receipt["steps"][3]["gridworld_state_hash"]
    receipt["steps"][3]["gridworld_state_hash"] = "0" * 64

    verdict = replay_verify(receipt)

    assert not verdict.ok
    assert verdict.divergence is not None
    assert (verdict.divergence.step, verdict.divergence.field) == (
        3,
        "gridworld_state_hash",
    )
    assert verdict.divergence.expected == original


def test_a_version_1_receipt_relabelled_version_2_does_not_verify() -> None:
    receipt = _stored(STORED[0])
    receipt["schema_version"] = 2

    verdict = replay_verify(receipt)

    assert not verdict.ok
    assert verdict.divergence is not None
    # The same step played in version 2 chains to another hash.
    assert (verdict.divergence.step, verdict.divergence.field) == (0, "receipt_hash")
    assert verdict.divergence.got == receipt["steps"][0]["receipt_hash"]


@pytest.mark.parametrize("version", [0, 3, "1", True, None, 1.5])
def test_an_unknown_schema_version_is_refused_before_replay(version: Any) -> None:
    receipt = _stored(STORED[0])
    receipt["schema_version"] = version

    verdict = replay_verify(receipt)

    assert not verdict.ok
    assert verdict.steps_checked == 0
    assert verdict.divergence is not None
    assert verdict.divergence.field == "schema_version"
    assert verdict.divergence.expected == 2


@pytest.mark.parametrize("grid", MAPS, ids=lambda g: g.name)
@pytest.mark.parametrize("proposer", ["planner", "greedy"])
@pytest.mark.parametrize("governor", ["lexicographic", "none"])
def test_version_1_episodes_equal_the_reference_steps_receipt_for_receipt(
    grid: GridMap, proposer: str, governor: str
) -> None:
    checked = 0
    for seed in range(12):
        config = EpisodeConfig(
            map=grid,
            seed=seed,
            drift_period=(seed % 4) + 3,
            max_steps=40,
            proposer=proposer,
            governor=governor,
        )
        fast = run_episode(config, episode_class=EpisodeV1)
        reference = reference_run_episode(config, ReferenceEpisodeV1)
        assert fast.receipt == reference.receipt
        assert fast.final_memory == reference.final_memory
        checked += len(fast.receipt["steps"])
    assert checked > 100


def _without_chain(receipt: dict[str, Any]) -> tuple[dict, list[dict]]:
    rest = {k: v for k, v in receipt.items() if k not in RUN_FIELDS}
    steps = [
        {k: v for k, v in step.items() if k not in CHAIN_FIELDS}
        for step in receipt["steps"]
    ]
    return rest, steps


@pytest.mark.parametrize("proposer", ["planner", "greedy"])
def test_both_versions_play_the_same_episodes(proposer: str) -> None:
    batch = BatchConfig(
        map=standard_layout("hazard"),
        episodes=30,
        proposer=proposer,
        seed=40,
        drift_period=6,
        max_steps=80,
        lane_size=10,
    )
    v2 = run_cases(batch, list(range(30)))
    with schema_v1_episodes():
        v1 = run_cases(batch, list(range(30)))
    for (_, new), (_, old) in zip(v2, v1, strict=True):
        assert new.receipt["schema_version"] == 2
        assert old.receipt["schema_version"] == 1
        assert _without_chain(new.receipt) == _without_chain(old.receipt)
        assert new.final_memory == old.final_memory
        assert new.receipt["chain_head"] != old.receipt["chain_head"]


def test_every_version_replays_in_its_own_version_over_many_seeds() -> None:
    """Exact replay equality: each receipt, written in either version and read
    back as JSON, verifies; in the other version's clothes it does not."""
    batch = BatchConfig(
        map=standard_layout("maze"), episodes=40, seed=1000, drift_period=5
    )
    written = {2: run_cases(batch, list(range(40)))}
    with schema_v1_episodes():
        written[1] = run_cases(batch, list(range(40)))
    for version, results in written.items():
        for _, result in results:
            receipt = json.loads(json.dumps(result.receipt))
            assert replay_verify(receipt).ok, (version, receipt["run_id"])
            other = copy.deepcopy(receipt)
            other["schema_version"] = 3 - version
            assert not replay_verify(other).ok
