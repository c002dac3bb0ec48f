"""Receipts replay exactly: same config, same bytes; any change is caught."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gridworld.core.config import BatchConfig, run_cases
from gridworld.core.episode import (
    EpisodeConfig,
    canonical,
    run_episode,
    run_id_for,
    step_preimage,
)
from gridworld.core.episode_v1 import EpisodeV1
from gridworld.core.grid import generate_map, parse_map_text, standard_layout
from gridworld.core.merkle import merkle_root
from gridworld.core.replay import replay_verify

ROOT = Path(__file__).resolve().parents[3]
SMALL = parse_map_text(
    "S..x.....x..\n.#.x.##..x..\n.#...#......\n...x...#..xG\n", name="corridors"
)


def receipt_for(grid=SMALL, max_steps: int = 24, **options) -> dict:
    config = EpisodeConfig(
        map=grid, seed=5, drift_period=6, max_steps=max_steps, **options
    )
    return json.loads(canonical(run_episode(config).receipt))


def test_same_config_gives_byte_identical_receipts() -> None:
    config = EpisodeConfig(map=standard_layout("hazard"), seed=42)
    assert canonical(run_episode(config).receipt) == canonical(
        run_episode(config).receipt
    )


def test_run_id_is_derived_from_the_config_hash() -> None:
    receipt = receipt_for()
    config_hash = hashlib.sha256(canonical(receipt["config"]).encode()).hexdigest()
    assert receipt["config_hash"] == config_hash
    assert receipt["run_id"] == run_id_for(config_hash) == f"gw-{config_hash[:24]}"
    assert receipt_for(proposer="greedy")["run_id"] != receipt["run_id"]


def test_receipts_form_a_hash_chain() -> None:
    receipt = receipt_for()
    prev = "0" * 64
    for step in receipt["steps"]:
        assert step["prev_receipt_hash"] == prev
        prev = hashlib.sha256(step_preimage(step).encode()).hexdigest()
        assert step["receipt_hash"] == prev
    assert receipt["chain_head"] == prev


def test_proposalset_root_is_the_merkle_root_of_the_proposals_in_action_order() -> None:
    step = receipt_for()["steps"][0]
    encoded = [
        (
            f"{p['action']}|{p['target'][0]},{p['target'][1]}|"
            f"{p['landing'][0]},{p['landing'][1]}|{p['v_task']}|{p['score']}|{p['bonus']}"
        ).encode()
        for p in step["decision"]
    ]
    assert [p["action"] for p in step["decision"]] == ["N", "S", "E", "W", "Stay"]
    assert step["proposalset_root"] == merkle_root(tuple(encoded))
    chosen = encoded[step["chosen_proposal_index"]]
    assert step["chosen_proposal_hash"] == hashlib.sha256(chosen).hexdigest()


def test_rfc6962_domain_separation() -> None:
    def h(data: bytes) -> bytes:
        return hashlib.sha256(data).digest()

    leaves = [h(b"\x00" + item) for item in (b"a", b"b", b"c")]
    left = h(b"\x01" + leaves[0] + leaves[1])
    assert merkle_root((b"a", b"b", b"c")) == h(b"\x01" + left + leaves[2]).hex()
    assert merkle_root((b"a",)) == leaves[0].hex()
    assert merkle_root(()) == hashlib.sha256(b"").hexdigest()


def test_replay_verifies_an_untouched_receipt() -> None:
    receipt = receipt_for()
    verification = replay_verify(receipt)
    assert verification.ok
    assert verification.steps_checked == len(receipt["steps"])
    assert verification.divergence is None


def test_replay_reports_the_first_divergent_step_and_field() -> None:
    receipt = receipt_for()
    receipt["steps"][4]["budget"] += 1
    receipt["steps"][6]["action_taken"] = "N"
    verification = replay_verify(receipt)
    assert not verification.ok
    divergence = verification.divergence
    assert (divergence.step, divergence.field) == (4, "budget")
    assert divergence.got == divergence.expected + 1


def test_replay_catches_a_changed_reason_and_a_dropped_step() -> None:
    receipt = receipt_for()
    tampered = copy.deepcopy(receipt)
    assert tampered["steps"][0]["decision"][0]["reasons"] == ["env:out_of_bounds"]
    tampered["steps"][0]["decision"][0]["reasons"] = []
    divergence = replay_verify(tampered).divergence
    assert (divergence.step, divergence.field) == (0, "decision[0].reasons.length")
    tampered = copy.deepcopy(receipt)
    tampered["steps"].pop()
    divergence = replay_verify(tampered).divergence
    assert divergence.field == "steps.length"


def test_one_flipped_byte_anywhere_fails_verification() -> None:
    text = canonical(receipt_for(max_steps=8))
    data = text.encode()
    for position in range(0, len(data), max(1, len(data) // 300)):
        flipped = bytearray(data)
        flipped[position] ^= 0x01
        try:
            doc = json.loads(bytes(flipped))
        except (ValueError, UnicodeDecodeError):
            continue
        assert not replay_verify(doc).ok, position


def test_an_invalid_config_is_a_divergence_not_a_crash() -> None:
    receipt = receipt_for()
    receipt["config"]["proposer"] = "oracle"
    verification = replay_verify(receipt)
    assert not verification.ok
    assert verification.divergence.field == "config.proposer"
    assert replay_verify([1, 2]).divergence.field == "receipt"


def test_planner_memory_carried_between_episodes_is_in_the_receipt() -> None:
    batch = BatchConfig(map=standard_layout("maze"), episodes=3, seed=1, drift_period=0)
    results = run_cases(batch, [0, 1, 2])
    second = results[1][1].receipt
    assert second["config"]["initial_memory"] == results[0][1].final_memory
    assert "?" in results[0][1].final_memory or "#" in results[0][1].final_memory
    assert replay_verify(json.loads(canonical(second))).ok


def test_chunks_give_the_same_episodes_whatever_the_split() -> None:
    batch = BatchConfig(map=standard_layout("maze"), episodes=8, seed=9, lane_size=3)
    whole = {i: canonical(r.receipt) for i, r in run_cases(batch, list(range(8)))}
    for chunk in ([5, 2], [7], [4, 3, 0]):
        for index, result in run_cases(batch, chunk):
            assert canonical(result.receipt) == whole[index]


def test_identical_across_processes_with_different_hash_seeds() -> None:
    script = (
        "import hashlib\n"
        "from gridworld.core.config import BatchConfig, run_cases\n"
        "from gridworld.core.episode import canonical\n"
        "from gridworld.core.grid import generate_map\n"
        "grid = generate_map(seed=4, width=11, height=6, hazard_permille=150)\n"
        "batch = BatchConfig(map=grid, episodes=6, seed=3, drift_period=5)\n"
        "h = hashlib.sha256()\n"
        "for _, r in run_cases(batch, list(range(6))):\n"
        "    h.update(canonical(r.receipt).encode())\n"
        "print(h.hexdigest())\n"
    )
    digests = set()
    for hash_seed in ("0", "1", "12345"):
        env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "PYTHONHASHSEED": hash_seed,
        }
        out = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1


@given(
    map_seed=st.integers(0, 10**6),
    width=st.integers(2, 10),
    height=st.integers(1, 7),
    seed=st.integers(0, 10**6),
    proposer=st.sampled_from(["planner", "greedy"]),
    governor=st.sampled_from(["lexicographic", "none"]),
)
@settings(max_examples=25, deadline=None)
def test_property_replay_always_verifies(
    map_seed: int, width: int, height: int, seed: int, proposer: str, governor: str
) -> None:
    grid = generate_map(seed=map_seed, width=width, height=height, hazard_permille=150)
    config = EpisodeConfig(
        map=grid,
        seed=seed,
        drift_period=4,
        max_steps=30,
        proposer=proposer,
        governor=governor,
    )
    receipt = json.loads(canonical(run_episode(config).receipt))
    assert replay_verify(receipt).ok


def test_a_receipt_claiming_an_overlong_episode_is_refused_not_replayed() -> None:
    receipt = receipt_for()
    receipt["config"]["max_steps"] = 10_001
    divergence = replay_verify(receipt).divergence
    assert divergence.field == "config.max_steps"
    assert divergence.got == "max_steps must be between 0 and 10000"


def test_golden_receipts_do_not_change_unnoticed() -> None:
    """The whole receipt's bytes for two fixed configs: a change to the env,
    kernel, proposers, governor or receipt format shows up here first (and
    then needs a schema_version bump, or old receipts stop verifying)."""
    expected = {
        "planner": "0a36598e80617178b169f4375498396d83684ac64d76f4d08862f9698d2744d9",
        "greedy": "6014877320ebf034b441fe76c124916515b698b008ce146b353dd731821f48f7",
    }
    for proposer, digest in expected.items():
        receipt = receipt_for(proposer=proposer)
        assert hashlib.sha256(canonical(receipt).encode()).hexdigest() == digest
    # Schema version 1, as it was written before version 2.
    expected_v1 = {
        "planner": "f7c16f295dc489552a4195d946313165dca48e1b3cee928fdf1143c526fb7949",
        "greedy": "c418b10c0a5bc1cb73ea0a888b804e3b2628a2a3a1c33a75368ee989a65e7311",
    }
    for proposer, digest in expected_v1.items():
        config = EpisodeConfig(
            map=SMALL, seed=5, drift_period=6, max_steps=24, proposer=proposer
        )
        receipt = run_episode(config, episode_class=EpisodeV1).receipt
        assert hashlib.sha256(canonical(receipt).encode()).hexdigest() == digest
