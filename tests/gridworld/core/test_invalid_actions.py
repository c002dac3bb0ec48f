"""An external action outside N, S, E, W, Stay is refused where it enters,
never played as Stay (which its own replay would then reject)."""

from __future__ import annotations

import pytest

from gridworld.core.episode import EpisodeConfig
from gridworld.core.grid import standard_layout
from gridworld.core.types import GridworldError


def test_episode_config_refuses_an_unknown_external_action() -> None:
    with pytest.raises(GridworldError) as caught:
        EpisodeConfig(
            map=standard_layout("simple"),
            seed=1,
            proposer="external",
            actions=("E", "Up", "S"),
        )
    assert caught.value.field == "actions[1]"
    assert caught.value.message == (
        "unknown action 'Up': actions must be N, S, E, W or Stay"
    )


def test_episode_config_takes_the_five_actions() -> None:
    config = EpisodeConfig(
        map=standard_layout("simple"),
        seed=1,
        proposer="external",
        actions=("N", "S", "E", "W", "Stay"),
    )
    assert config.as_dict()["actions"] == ["N", "S", "E", "W", "Stay"]
