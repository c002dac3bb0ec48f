"""The receipt format can be re-implemented from docs/gridworld.md alone.

The verifier below is written from the page's "Receipt bytes" and "Schema
version 1" sections, with hashlib and json only: it imports none of
gridworld's hashing code. It checks the page's worked examples line by line,
then every hash of generated episodes (every layout feature, both governors,
all three proposers, goal drift) in both schema versions.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gridworld.core.config import parse_batch_config, run_cases
from gridworld.core.episode import EpisodeConfig, canonical, run_episode
from gridworld.core.episode_v1 import EpisodeV1
from gridworld.core.grid import parse_map_text
from tests.gridworld.oracle import schema_v1_episodes

DOC = Path(__file__).resolve().parents[3] / "docs" / "gridworld.md"
ZEROS = "0" * 64
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CELL_CODES = {".": 0, "#": 1, "x": 2, "S": 0, "G": 0}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def grid_of(map_text: str) -> list[list[int]]:
    return [[CELL_CODES[c] for c in row] for row in map_text.split("\n")[:-1]]


def state_json(
    seed: int, goal: list[int], grid: list[list[int]], pos: list[int], t: int
) -> str:
    rows = ", ".join("[" + ", ".join(str(c) for c in row) + "]" for row in grid)
    return (
        f'{{"drift_seed": {seed}, "goal": [{goal[0]}, {goal[1]}], "grid": [{rows}], '
        f'"position": [{pos[0]}, {pos[1]}], "t": {t}}}'
    )


def encoding(p: dict[str, Any]) -> str:
    (tx, ty), (lx, ly) = p["target"], p["landing"]
    return f"{p['action']}|{tx},{ty}|{lx},{ly}|{p['v_task']}|{p['score']}|{p['bonus']}"


def merkle(leaves: list[bytes]) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    split = 1
    while split * 2 < len(leaves):
        split *= 2
    return hashlib.sha256(
        b"\x01" + merkle(leaves[:split]) + merkle(leaves[split:])
    ).digest()


def proposal_root(encodings: list[str]) -> str:
    return merkle(
        [hashlib.sha256(b"\x00" + e.encode()).digest() for e in encodings]
    ).hex()


def transition_text(step: dict[str, Any]) -> str:
    decision = ";".join(
        encoding(p) + ":" + ",".join(p["reasons"]) for p in step["decision"]
    )
    fields = [
        step["kernel_state_hash"],
        step["proposalset_root"],
        str(step["chosen_proposal_index"]),
        step["chosen_proposal_hash"],
        step["action_taken"],
        str(step["reward"]),
        str(step["task_performance"]),
        "1" if step["goal_reached"] else "0",
        str(step["budget"]),
        str(step["exposure"]),
        str(step["work"]),
        str(step["memory_writes"]),
        decision,
    ]
    return "|".join(fields)


def preimage(step: dict[str, Any], version: int = 2) -> str:
    head = [
        str(step["step"]),
        "{},{}".format(*step["position"]),
        "{},{}".format(*step["goal"]),
    ]
    if version == 1:
        middle = [step["gridworld_state_hash"], transition_text(step)]
    else:
        middle = [sha(transition_text(step))]
    return "|".join([*head, *middle, step["prev_receipt_hash"]])


def verify(receipt: dict[str, Any], memory: str | None) -> None:
    """Every hash of ``receipt``, recomputed from the page's rules."""
    config = receipt["config"]
    text = config["map"]["text"]
    grid = grid_of(text)
    seed = config["seed"]
    assert config["map"]["hash"] == sha(text)
    assert receipt["config_hash"] == sha(canonical_json(config))
    assert receipt["run_id"] == "gw-" + receipt["config_hash"][:24]
    assert receipt["initial_gridworld_hash"] == sha(
        state_json(seed, config["goal"], grid, config["start"], 0)
    )
    assert receipt["initial_kernel_state_hash"] == sha(f"b={config['budget']};e=0")
    prev = ZEROS
    actions = ["N", "S", "E", "W", "Stay"]
    version = receipt["schema_version"]
    assert version in (1, 2)
    for step in receipt["steps"]:
        assert [p["action"] for p in step["decision"]] == actions
        assert step["action_taken"] == actions[step["chosen_proposal_index"]]
        if version == 1:
            assert step["gridworld_state_hash"] == sha(
                state_json(seed, step["goal"], grid, step["position"], step["step"] + 1)
            )
        else:
            assert "gridworld_state_hash" not in step
        assert step["kernel_state_hash"] == sha(
            f"b={step['budget']};e={step['exposure']}"
        )
        encodings = [encoding(p) for p in step["decision"]]
        assert step["proposalset_root"] == proposal_root(encodings)
        assert step["chosen_proposal_hash"] == sha(
            encodings[step["chosen_proposal_index"]]
        )
        assert step["prev_receipt_hash"] == prev
        prev = sha(preimage(step, version))
        assert step["receipt_hash"] == prev
    assert receipt["chain_head"] == prev
    if memory is not None:
        assert receipt["final_memory_hash"] == sha(memory)
    rest = {k: v for k, v in receipt.items() if k not in ("steps", "run_hash")}
    assert receipt["run_hash"] == sha(canonical_json(rest))
    # The receipt file: canonical JSON of the whole receipt.
    assert canonical(receipt) == canonical_json(receipt)


def worked_example(heading: str = "### Worked example") -> dict[str, str]:
    section = DOC.read_text(encoding="utf-8").split(heading + "\n", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block, "the worked example block"
    lines = {}
    for line in block.group(1).splitlines():
        name, _, value = line.partition(" = ")
        lines[name.strip()] = value
    return lines


def test_the_docs_worked_example_recomputes_from_its_own_lines() -> None:
    ex = worked_example()
    text = ex["map text"].replace("\\n", "\n")
    assert text == "S.x\n..G\n"
    assert ex["state json"] == state_json(1, [2, 1], grid_of(text), [0, 0], 0)
    assert ex["state hash"] == sha(ex["state json"])
    assert ex["kernel hash"] == sha(ex["kernel text"])
    encodings = [ex[f"proposal {a}"] for a in ("N", "S", "E", "W", "Stay")]
    assert ex["proposalset root"] == proposal_root(encodings)
    assert ex["chosen hash"] == sha(ex["proposal S"])
    assert ex["transition hash"] == sha(ex["transition text"])
    assert ex["receipt hash"] == sha(ex["preimage"])
    parts = ex["transition text"].split("|")
    assert parts[:2] == [ex["kernel hash"], ex["proposalset root"]]
    assert parts[3] == ex["chosen hash"]
    assert ex["preimage"] == f"0|0,1|2,1|{ex['transition hash']}|{ZEROS}"
    v1 = worked_example("### Schema version 1")
    assert v1["state json"] == state_json(1, [2, 1], grid_of(text), [0, 1], 1)
    assert v1["state hash"] == sha(v1["state json"])
    assert v1["preimage"] == (
        f"0|0,1|2,1|{v1['state hash']}|{ex['transition text']}|{ZEROS}"
    )
    assert v1["receipt hash"] == sha(v1["preimage"])


def test_the_docs_worked_example_is_what_the_code_writes() -> None:
    ex = worked_example()
    config = EpisodeConfig(
        map=parse_map_text("S.x\n..G\n", name="tiny"),
        seed=1,
        drift_period=0,
        max_steps=1,
        proposer="greedy",
    )
    receipt = run_episode(config).receipt
    step = receipt["steps"][0]
    assert receipt["initial_gridworld_hash"] == ex["state hash"]
    assert transition_text(step) == ex["transition text"]
    assert preimage(step) == ex["preimage"]
    assert step["receipt_hash"] == ex["receipt hash"]
    assert [encoding(p) for p in step["decision"]] == [
        ex[f"proposal {a}"] for a in ("N", "S", "E", "W", "Stay")
    ]
    verify(receipt, memory="")
    v1 = worked_example("### Schema version 1")
    receipt = run_episode(config, episode_class=EpisodeV1).receipt
    step = receipt["steps"][0]
    assert step["gridworld_state_hash"] == v1["state hash"]
    assert preimage(step, version=1) == v1["preimage"]
    assert step["receipt_hash"] == v1["receipt hash"]
    verify(receipt, memory="")


@pytest.mark.parametrize(
    "config",
    [
        {"map": "hazard", "proposer": "planner", "seed": 4},
        {"map": "maze", "proposer": "greedy", "seed": 9, "drift_period": 7},
        {"map": "hazard", "proposer": "greedy", "governor": "none", "seed": 2},
        {"map": "generated:7:14x8", "proposer": "planner", "budget": 40},
        {"map": "corner", "map_text": "S.#.\n.x.G\n...x\n", "proposer": "greedy"},
    ],
)
def test_generated_episodes_verify_with_the_docs_rules(config: dict[str, Any]) -> None:
    batch = parse_batch_config({"episodes": 3, "lane_size": 3, **config})
    for _, result in run_cases(batch, [0, 1, 2]):
        memory = "" if batch.proposer == "greedy" else result.final_memory
        assert result.receipt["schema_version"] == 2
        verify(result.receipt, memory)
    with schema_v1_episodes():
        for _, result in run_cases(batch, [0, 1, 2]):
            memory = "" if batch.proposer == "greedy" else result.final_memory
            assert result.receipt["schema_version"] == 1
            verify(result.receipt, memory)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("v1_*.json")), ids=str)
def test_stored_version_1_receipts_verify_with_the_docs_rules(path: Path) -> None:
    receipt = json.loads(path.read_text(encoding="utf-8"))
    proposer = receipt["config"]["proposer"]
    verify(receipt, memory="" if proposer != "planner" else None)


def test_an_external_agents_episode_verifies_with_the_docs_rules() -> None:
    config = EpisodeConfig(
        map=parse_map_text("S.x\n...\n#.G\n", name="small"),
        seed=5,
        drift_period=3,
        max_steps=8,
        proposer="external",
        actions=("W", "E", "E", "S", "S", "Stay", "N", "S"),
    )
    verify(run_episode(config).receipt, memory="")
    verify(run_episode(config, episode_class=EpisodeV1).receipt, memory="")
