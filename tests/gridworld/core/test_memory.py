"""The planner's map memory: parsed once per text, shared until written."""

from __future__ import annotations

from gridworld.core.config import BatchConfig, run_cases
from gridworld.core.env import GridState, observe
from gridworld.core.grid import standard_layout
from gridworld.core.memory import (
    CHAR_MEMORY,
    UNKNOWN,
    blocked_cells,
    memory_map,
    unknown_rows,
)
from gridworld.core.proposers import PlannerProposer
from gridworld.core.types import EMPTY, HAZARD, WALL


def test_a_memory_text_parses_to_its_cells_and_back() -> None:
    parsed = memory_map("?.#\nx..", 3, 2)
    assert parsed.rows == ((UNKNOWN, EMPTY, WALL), (HAZARD, EMPTY, EMPTY))
    assert parsed.text == "?.#\nx.."
    assert CHAR_MEMORY == {"?": UNKNOWN, ".": EMPTY, "#": WALL, "x": HAZARD}


def test_blocked_cells_are_the_walls_and_hazards_in_a_framed_grid() -> None:
    # Width 3 framed by one cell: 5 a row; (2, 0) is 1 * 5 + 3, (0, 1) 2 * 5 + 1.
    assert blocked_cells(((UNKNOWN, EMPTY, WALL), (HAZARD, EMPTY, EMPTY)), 3) == (
        8,
        11,
    )


def test_an_unknown_map_is_all_unknown_and_shared() -> None:
    rows = unknown_rows(4, 2)
    assert rows == ((UNKNOWN,) * 4, (UNKNOWN,) * 4)
    assert unknown_rows(4, 2) is rows


def test_a_planner_copies_a_shared_memory_before_writing_it() -> None:
    grid = standard_layout("hazard")
    batch = BatchConfig(map=grid, episodes=3, seed=2, drift_period=5)
    memory = run_cases(batch, [0])[0][1].final_memory
    remembered = memory_map(memory, grid.width, grid.height)
    unseen = next(
        (x, y)
        for y in range(grid.height)
        for x in range(grid.width)
        if (x, y) not in remembered.complete
    )
    planner = PlannerProposer(width=grid.width, height=grid.height)
    planner.start_episode(memory)
    state = GridState(unseen, grid.goal, 0, 1)

    writes = planner.observe(state, observe(grid.cells, state))

    assert writes > 0
    assert planner.memory_text() != memory
    # The parsed memory every later episode starts from is as it was.
    assert remembered.rows == tuple(
        tuple(CHAR_MEMORY[c] for c in row) for row in memory.split("\n")
    )
    assert unseen not in remembered.complete
    assert unseen in planner._seen_from
    assert (
        unknown_rows(grid.width, grid.height)
        == ((UNKNOWN,) * grid.width,) * grid.height
    )
