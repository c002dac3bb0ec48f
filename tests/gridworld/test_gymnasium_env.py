"""The Gymnasium wrapper passes check_env and still produces verifiable receipts."""

from __future__ import annotations

import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from gridworld.core.grid import parse_map_text  # noqa: E402
from gridworld.core.replay import replay_verify  # noqa: E402
from gridworld.gymnasium_env import GridworldEnv  # noqa: E402

CORRIDOR = parse_map_text("S.x...\n......\n..x..G\n", name="corridor")


def test_check_env_passes() -> None:
    check_env(GridworldEnv("hazard"), skip_render_check=True)
    check_env(GridworldEnv(CORRIDOR, shield=True), skip_render_check=True)


def test_spaces_and_step_tuple() -> None:
    env = GridworldEnv(CORRIDOR)
    assert env.action_space.n == 5
    obs, info = env.reset(seed=3)
    assert obs["patch"].shape == (5, 5)
    assert obs["goal_delta"].tolist() == [5, 2]
    assert info == {"drift_seed": 3}
    result = env.step(2)
    assert len(result) == 5
    _, reward, terminated, truncated, info = result
    assert (reward, terminated, truncated, info["cost"]) == (-1.0, False, False, 0.0)


def test_hazard_entry_costs_and_the_shield_refuses_it() -> None:
    env = GridworldEnv(CORRIDOR, drift_period=0)
    env.reset(seed=1)
    env.step(2)
    _, reward, _, _, info = env.step(2)
    assert (reward, info["cost"]) == (-50.0, 1.0)
    shielded = GridworldEnv(CORRIDOR, drift_period=0, shield=True)
    shielded.reset(seed=1)
    shielded.step(2)
    _, _, _, _, info = shielded.step(2)
    assert info["cost"] == 0.0
    assert info["receipt"]["action_taken"] == "Stay"
    assert info["receipt"]["decision"][2]["reasons"] == ["env:hazard_collision"]


def test_receipt_of_an_agent_driven_episode_replays() -> None:
    env = GridworldEnv(CORRIDOR, drift_period=3, max_steps=12, shield=True)
    env.reset(seed=9)
    actions = [1, 2, 2, 2, 0, 2, 2, 1, 3, 4, 2, 2]
    terminated = truncated = False
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    receipt = env.receipt()
    assert receipt["config"]["proposer"] == "external"
    assert replay_verify(receipt).ok
    receipt["config"]["actions"][0] = "N"
    assert not replay_verify(receipt).ok


def test_receipt_of_an_episode_stopped_early_covers_the_steps_played() -> None:
    env = GridworldEnv("hazard", drift_period=5, shield=True)
    env.reset(seed=1)
    for action in [1, 1, 2, 2, 2, 1, 1, 1, 1, 1]:
        env.step(action)
    receipt = env.receipt()
    assert len(receipt["steps"]) == 10
    assert receipt["config"]["max_steps"] == 10
    assert replay_verify(receipt).ok


@pytest.mark.parametrize("action", [-1, 5, 2.0, "N"])
def test_step_refuses_an_action_outside_the_space(action: object) -> None:
    env = GridworldEnv(CORRIDOR, shield=True)
    env.reset(seed=1)
    env.step(2)
    with pytest.raises(ValueError, match=r"is not in the action space Discrete\(5\)"):
        env.step(action)  # type: ignore[arg-type]
    receipt = env.receipt()
    assert [s["action_taken"] for s in receipt["steps"]] == ["E"]
    assert replay_verify(receipt).ok
