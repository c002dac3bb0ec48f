"""Golden receipt digests: the fast step path must not move a single byte.

Pinned for schema version 2 (what production writes) and for version 1
(``EpisodeV1``, which replays stored version 1 receipts: the same bytes as
when version 1 was written).

Each digest is the sha256 over the canonical JSON of every receipt (and the
planner's final memory) of a few consecutive episodes of one lane, on every
standard layout and a non-square map, with goal drift, for both proposers and
both governors, plus an external agent's scripted actions. Any change to the
environment, kernel, proposers, governors, metrics or receipt format shows up
here (and then needs a schema_version bump, or stored receipts stop verifying).
"""

from __future__ import annotations

import hashlib

import pytest

from gridworld.core.config import BatchConfig, run_cases
from gridworld.core.episode import EpisodeConfig, canonical, run_episode
from gridworld.core.episode_v1 import EpisodeV1
from gridworld.core.grid import GridMap, parse_map_text, standard_layout
from gridworld.core.replay import replay_verify
from tests.gridworld.oracle import schema_v1_episodes

NON_SQUARE = parse_map_text(
    "S..x.....x..\n.#.x.##..x..\n.#...#......\n...x...#..xG\n", name="corridors"
)
EPISODES = 3

# Schema version 1, as written before version 2 (replayed by EpisodeV1).
GOLDEN_V1 = {
    (
        "simple",
        "planner",
        "lexicographic",
        150,
    ): "7d90d17c96f7b051d2ea1056349c8507e269b1b9fa4e81f236063874afefb017",
    (
        "simple",
        "planner",
        "none",
        150,
    ): "6819c6098a57f3e8a0040ba9d7d7a188359ec00fa7c122cc928fa68d76699a7d",
    (
        "simple",
        "greedy",
        "lexicographic",
        150,
    ): "faa7aebce1b146c59dec65fd1dba5e7fa24293f20c69a0e8d44c350bbfb169eb",
    (
        "simple",
        "greedy",
        "none",
        150,
    ): "88877e63deabe7c12cb45a16f53cd9fd2807e1f9a2eb68e8e9a671e50227fc74",
    (
        "maze",
        "planner",
        "lexicographic",
        150,
    ): "81fd05c866492c821d73302bede0539b421279e1d7b99c648117a29d00f79189",
    (
        "maze",
        "planner",
        "none",
        150,
    ): "11164420cdd3dad62f3abf975b91658fd168641f290cecc4f153c6b9e474faa1",
    (
        "maze",
        "greedy",
        "lexicographic",
        150,
    ): "1651bb03f28eb95051b3fa1db1604775fcf687b4539616550497f23fecb45d82",
    (
        "maze",
        "greedy",
        "none",
        150,
    ): "6cc88382f0bb88036218ce509c78245ac9b2a22356f40f05d3bf161248370985",
    (
        "hazard",
        "planner",
        "lexicographic",
        150,
    ): "e493dea957b103d28686180376f690de5af9d91de6326399f564e90dfa6458f3",
    (
        "hazard",
        "planner",
        "none",
        150,
    ): "9706b30790f107c1433dfae4f108be737bbb7418aac3fb9f3b826805c3ca8f2f",
    (
        "hazard",
        "greedy",
        "lexicographic",
        150,
    ): "610fc1bbc008f6cf92e98837270eb94abfc212f90afa9c4a96882e6cdc2926e9",
    (
        "hazard",
        "greedy",
        "none",
        150,
    ): "98ec244ab18a9287d6cddfc59f7820fbfac91548b4f3033438bdf7b3a0efa392",
    (
        "corridors",
        "planner",
        "lexicographic",
        150,
    ): "5462fbf4c82dde39b28ebae053d7dd1e749899d4565bacf38e777e538b20c5cb",
    (
        "corridors",
        "planner",
        "none",
        150,
    ): "4ed21bfe3f9e6912fd29b40753d585ae3fc0a345b615c675e099ad82bc34bf42",
    (
        "corridors",
        "greedy",
        "lexicographic",
        150,
    ): "722af88a6e4e4b07f1d4dde08cb755461f0bf0071fecd31a478da453d1262e83",
    (
        "corridors",
        "greedy",
        "none",
        150,
    ): "89faf14a912c054aa915b2f18893f4ecbd6147f0c360e131fff04465971d1c16",
    (
        "hazard",
        "planner",
        "lexicographic",
        20,
    ): "7d6f16aab94db3ff965ddd9c8325b3f6c2655d07660777604b568120c5ddb035",
    (
        "hazard",
        "greedy",
        "lexicographic",
        20,
    ): "e0c9a7ba0b02f55e458769384debcd89d7e450024b1a54334621da5ffe7a237a",
    (
        "maze",
        "planner",
        "none",
        20,
    ): "2b29d6e257fb9749c1458121476727152e472d769903c5b1b7b56e0ad0248968",
    (
        "corridors",
        "greedy",
        "none",
        20,
    ): "811750c89bc4fd2c6a020acde2982f23cda1f8f2e60b43d2183eff104093fb61",
}
EXTERNAL_GOLDEN_V1 = "40893b88ea683b3a2d26a4307b12e95e07368f4a5402b078c7467627edd62f77"

# Schema version 2, what production writes.
GOLDEN = {
    (
        "corridors",
        "greedy",
        "lexicographic",
        150,
    ): "c2b5bd2743dc66cd11582afee6bbc4781c4f30bde07db9a6aca7a64fba34defe",
    (
        "corridors",
        "greedy",
        "none",
        20,
    ): "0c8fcfb06dfd7fe457a985c999bec390084b4290b724a32ca3c6541c128f55b9",
    (
        "corridors",
        "greedy",
        "none",
        150,
    ): "7be47f02189053fbff98b6085f83cb8c50e410ddb0cafe215ad252fe9533520f",
    (
        "corridors",
        "planner",
        "lexicographic",
        150,
    ): "5822017d629615849e8d09493d02847568cad7763bc2d54df9bccf5a91ad0c24",
    (
        "corridors",
        "planner",
        "none",
        150,
    ): "a635ae75f74d9ae6b0f0b48d70ad71d481814ea72be1a39dc7ce67450a3ea45a",
    (
        "hazard",
        "greedy",
        "lexicographic",
        20,
    ): "721ae48e70486c772a4610be72a4e0a691179c9fa463494c4a912299324faf3b",
    (
        "hazard",
        "greedy",
        "lexicographic",
        150,
    ): "c5abf2673849d1171323743c94dea7240e44d4683df4d6c1d14b05b39aa4676d",
    (
        "hazard",
        "greedy",
        "none",
        150,
    ): "1d6f5ff3d955bc17f1b026a0f50c7976ba53f58754bd38ce8d53884f7fa97334",
    (
        "hazard",
        "planner",
        "lexicographic",
        20,
    ): "b79f729870a67ce707ab498604a910c927b7d0287b73d79b6da8863bfc64a64a",
    (
        "hazard",
        "planner",
        "lexicographic",
        150,
    ): "1aa9c0fb978f8701f85f9dd1ad7d8eae1eb257a4dfef8a0ef5d7335fa3cd670d",
    (
        "hazard",
        "planner",
        "none",
        150,
    ): "a95a7aed1cef15f883756e5ec6571cc656dd91509512f33d3caa72ff0ffbff9d",
    (
        "maze",
        "greedy",
        "lexicographic",
        150,
    ): "90ca3067fed67218927a8d3d48073b8e40a7607c651a255394b77598922b5dae",
    (
        "maze",
        "greedy",
        "none",
        150,
    ): "c1320397712484f5d7fe3e76d0f41b3c287c70edde36a8fef4214a2be9292c21",
    (
        "maze",
        "planner",
        "lexicographic",
        150,
    ): "1228d3cf6f01b4c32c1cd24dea6834a27297228c5c36f5575b339a1e923be3cb",
    (
        "maze",
        "planner",
        "none",
        20,
    ): "c98e66fcf25beafa87bf25bfaf1bfb0297c75c076ebab8c88ea01ccebed165f2",
    (
        "maze",
        "planner",
        "none",
        150,
    ): "0c31aa411c085623fce90e7fec9f1d13e2517405f9dbda7cb486ddb08e531d7c",
    (
        "simple",
        "greedy",
        "lexicographic",
        150,
    ): "3b251e07696ff618c5b12a43a9c934216ce10f462c66f2414ca60e44c348a486",
    (
        "simple",
        "greedy",
        "none",
        150,
    ): "ae3b85e8dfdbe7a19731dd01a75f9729c52514e2f2198ed993fe1690af9bc48c",
    (
        "simple",
        "planner",
        "lexicographic",
        150,
    ): "9ce77209c3ce62b0e81b35eb088147e81fbb7de8d58180b90c33699e13c7681d",
    (
        "simple",
        "planner",
        "none",
        150,
    ): "dd43c11fa551819d26889da55e0d7b7f86b334600a63ba6d6f9f15e52b283302",
}
EXTERNAL_GOLDEN = "7764f0c2f08a8cc63d891931a6b87c6f0247b1db2f7856cdb80ba2e9b1d8a74a"


def _grid(name: str) -> GridMap:
    return NON_SQUARE if name == "corridors" else standard_layout(name)


def _lane_digest(
    layout: str, proposer: str, governor: str, budget: int
) -> tuple[str, list]:
    batch = BatchConfig(
        map=_grid(layout),
        episodes=EPISODES,
        proposer=proposer,
        governor=governor,
        seed=7,
        drift_period=7,
        max_steps=60,
        budget=budget,
    )
    results = run_cases(batch, list(range(EPISODES)))
    digest = hashlib.sha256()
    for _, result in results:
        digest.update(canonical(result.receipt).encode())
        digest.update(result.final_memory.encode())
    return digest.hexdigest(), [r.receipt for _, r in results]


@pytest.mark.parametrize(("layout", "proposer", "governor", "budget"), sorted(GOLDEN))
def test_receipt_bytes_are_pinned(
    layout: str, proposer: str, governor: str, budget: int
) -> None:
    digest, receipts = _lane_digest(layout, proposer, governor, budget)
    assert digest == GOLDEN[(layout, proposer, governor, budget)]
    assert all(replay_verify(receipt).ok for receipt in receipts)


def _external_config() -> EpisodeConfig:
    """An external agent's episode on the hazard map: its pinned actions."""
    actions = ("S", "S", "E", "E", "N", "W", "Stay", "E", "S", "S", "E", "E") * 3
    return EpisodeConfig(
        map=standard_layout("hazard"),
        seed=3,
        drift_period=5,
        max_steps=len(actions),
        proposer="external",
        actions=actions,
    )


def test_external_agent_receipt_bytes_are_pinned() -> None:
    config = _external_config()
    receipt = run_episode(config).receipt
    assert hashlib.sha256(canonical(receipt).encode()).hexdigest() == EXTERNAL_GOLDEN
    assert replay_verify(receipt).ok


@pytest.mark.parametrize(
    ("layout", "proposer", "governor", "budget"), sorted(GOLDEN_V1)
)
def test_schema_1_receipt_bytes_are_still_what_they_were(
    layout: str, proposer: str, governor: str, budget: int
) -> None:
    with schema_v1_episodes():
        digest, receipts = _lane_digest(layout, proposer, governor, budget)
    assert digest == GOLDEN_V1[(layout, proposer, governor, budget)]
    assert {r["schema_version"] for r in receipts} == {1}
    assert all(replay_verify(receipt).ok for receipt in receipts)


def test_schema_1_external_agent_receipt_bytes_are_still_what_they_were() -> None:
    config = _external_config()
    receipt = run_episode(config, episode_class=EpisodeV1).receipt
    digest = hashlib.sha256(canonical(receipt).encode()).hexdigest()
    assert digest == EXTERNAL_GOLDEN_V1
    assert replay_verify(receipt).ok
