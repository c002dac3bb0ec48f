"""The environment matches the benchmark's reference: cells, actions, hashes, drift."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridworld.core.env import (
    GridState,
    drift_goal,
    grid_json,
    observe,
    state_hash,
)
from gridworld.core.grid import (
    distances_from,
    generate_map,
    parse_map_text,
    standard_layout,
)
from gridworld.core.types import EMPTY, HAZARD, WALL, GridworldError
from tests.gridworld.oracle import env_step

NON_SQUARE = "S..x...\n.#.x.#.\n.#...#G\n"


def reference_drift(cells, goal, position, drift_seed, t):
    """The reference implementation's drift, transcribed literally."""
    height, width = len(cells), len(cells[0])
    state = drift_seed * 1000000 + t
    a, c, m = 1103515245, 12345, 2**31
    state = (a * state + c) % m
    new_goal = goal
    for _ in range(100):
        x, y = state % width, (state // width) % height
        if cells[y][x] == 0:
            new_goal = (x, y)
            break
        state = (a * state + c) % m
    return goal if new_goal == position else new_goal


def test_standard_layouts_match_the_reference_cells() -> None:
    maze = standard_layout("maze")
    walls = {(x, y) for y, row in enumerate(maze.cells) for x, c in enumerate(row) if c}
    assert walls == {(3, y) for y in (0, 1, 2, 3, 5, 6, 7, 8, 9)} | {
        (6, y) for y in (1, 2, 3, 4, 5, 7, 8, 9)
    }
    hazard = standard_layout("hazard")
    hazards = {
        (x, y)
        for y, row in enumerate(hazard.cells)
        for x, c in enumerate(row)
        if c == 2
    }
    assert hazards == {(2, 2), (2, 3), (2, 4), (5, 5), (5, 6), (5, 7), (7, 2), (7, 3)}
    assert [hazard.cells[y][4] for y in range(3)] == [WALL] * 3
    for name in ("simple", "maze", "hazard"):
        grid = standard_layout(name)
        assert (grid.width, grid.height, grid.start, grid.goal) == (
            10,
            10,
            (0, 0),
            (9, 9),
        )


def test_unknown_layout_is_a_clear_error() -> None:
    with pytest.raises(GridworldError) as error:
        standard_layout("lava")
    assert error.value.field == "map"
    assert "unknown layout 'lava'" in error.value.message


def test_state_hash_is_the_reference_json_of_the_state() -> None:
    grid = parse_map_text(NON_SQUARE)
    state = GridState((2, 1), (6, 2), 7, 42)
    reference = json.dumps(
        {
            "position": [2, 1],
            "goal": [6, 2],
            "grid": [list(row) for row in grid.cells],
            "t": 7,
            "drift_seed": 42,
        },
        sort_keys=True,
    )
    expected = hashlib.sha256(reference.encode()).hexdigest()
    assert state_hash(state, grid_json(grid.cells)) == expected


def test_moves_follow_the_action_order_and_walls_and_bounds_hold_the_agent() -> None:
    grid = parse_map_text(NON_SQUARE)
    state = GridState((0, 1), (6, 2), 0, 1)
    assert env_step(grid.cells, state, "N")[0].position == (0, 0)
    assert env_step(grid.cells, state, "S")[0].position == (0, 2)
    assert env_step(grid.cells, state, "E")[0].position == (0, 1)  # wall at (1,1)
    assert env_step(grid.cells, state, "W")[0].position == (0, 1)  # off the map
    after, reward = env_step(grid.cells, state, "Stay")
    assert (after.position, after.t, reward) == ((0, 1), 1, -1)


def test_rewards_goal_hazard_and_step() -> None:
    grid = parse_map_text(NON_SQUARE)
    assert env_step(grid.cells, GridState((2, 0), (6, 2), 0, 1), "E")[1] == -50
    assert env_step(grid.cells, GridState((5, 2), (6, 2), 0, 1), "E")[1] == 100
    assert env_step(grid.cells, GridState((0, 0), (6, 2), 0, 1), "E")[1] == -1


def test_observation_patch_reads_off_map_as_wall_and_gives_the_beacon() -> None:
    grid = parse_map_text(NON_SQUARE)
    obs = observe(grid.cells, GridState((0, 0), (6, 2), 0, 1))
    assert obs.patch[0] == (WALL,) * 5
    assert obs.patch[2] == (WALL, WALL, EMPTY, EMPTY, EMPTY)
    assert obs.patch[3] == (WALL, WALL, EMPTY, WALL, EMPTY)
    assert obs.goal_delta == (6, 2)
    assert obs.distance == 8


@given(seed=st.integers(0, 10_000), t=st.integers(1, 400))
@settings(max_examples=60, deadline=None)
def test_drift_is_the_reference_lcg(seed: int, t: int) -> None:
    grid = parse_map_text(NON_SQUARE)
    for position in ((0, 0), (2, 2)):
        state = GridState(position, (6, 2), t, seed)
        expected = reference_drift(grid.cells, (6, 2), position, seed, t)
        assert drift_goal(grid.cells, state).goal == expected


def test_drift_lands_only_on_empty_cells_and_never_on_the_agent() -> None:
    grid = generate_map(seed=3, width=9, height=5, wall_permille=300)
    for seed in range(50):
        for t in (10, 20, 30):
            state = GridState((0, 0), (8, 4), t, seed)
            goal = drift_goal(grid.cells, state).goal
            assert grid.cells[goal[1]][goal[0]] == EMPTY
            assert goal != (0, 0)


def test_text_map_errors_name_every_line() -> None:
    with pytest.raises(GridworldError) as error:
        parse_map_text("S.?\n..\n")
    message = error.value.message
    assert "line 1: unknown cell '?' at column 3" in message
    assert "line 2: width 2, expected 3" in message
    assert "expected exactly one goal G, found 0" in message


def test_text_map_must_be_solvable_without_crossing_hazards() -> None:
    with pytest.raises(GridworldError, match="without crossing a hazard"):
        parse_map_text("SxG\n#x#\n")


def test_text_map_round_trips_and_hash_names_the_cells() -> None:
    grid = parse_map_text(NON_SQUARE, name="corridor")
    assert (grid.width, grid.height, grid.start, grid.goal) == (7, 3, (0, 0), (6, 2))
    assert grid.text() == NON_SQUARE
    assert grid.digest() == hashlib.sha256(NON_SQUARE.encode()).hexdigest()


@given(
    seed=st.integers(0, 2**31),
    width=st.integers(2, 14),
    height=st.integers(3, 9),
    walls=st.integers(0, 250),
    hazards=st.integers(0, 150),
)
@settings(max_examples=80, deadline=None)
def test_generated_maps_are_deterministic_and_solvable(
    seed: int, width: int, height: int, walls: int, hazards: int
) -> None:
    grid = generate_map(
        seed=seed,
        width=width,
        height=height,
        wall_permille=walls,
        hazard_permille=hazards,
    )
    again = generate_map(
        seed=seed,
        width=width,
        height=height,
        wall_permille=walls,
        hazard_permille=hazards,
    )
    assert grid == again
    assert distances_from(grid.cells, grid.goal)[grid.start[1]][grid.start[0]] > 0
    assert grid.cells[grid.start[1]][grid.start[0]] not in (WALL, HAZARD)


def test_generation_that_cannot_find_a_solvable_map_says_so() -> None:
    with pytest.raises(GridworldError, match="no solvable map found"):
        generate_map(seed=1, width=40, height=1, wall_permille=300, hazard_permille=300)
    one_row = generate_map(
        seed=5, width=6, height=1, wall_permille=0, hazard_permille=0
    )
    assert one_row.text() == "S....G\n"
