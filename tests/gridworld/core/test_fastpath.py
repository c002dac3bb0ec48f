"""The step's precomputed tables give exactly what the reference functions give."""

from __future__ import annotations

import itertools

import pytest

from gridworld.core.env import GridState, observe, state_hash
from gridworld.core.fastpath import (
    StateHasher,
    decide_fast,
    map_tables,
    proposal_set_info,
)
from gridworld.core.governor import (
    ABSORBED,
    HAZARD_COLLISION,
    OUT_OF_BOUNDS,
    WALL_COLLISION,
    decide,
)
from gridworld.core.grid import GridMap, generate_map, parse_map_text, standard_layout
from gridworld.core.kernel import KernelParams, KernelState
from gridworld.core.merkle import merkle_root
from gridworld.core.proposers import Proposal
from gridworld.core.types import ACTIONS, DELTAS, Q

MAPS = [
    standard_layout("hazard"),
    standard_layout("maze"),
    parse_map_text("S..x.#\n..#..x\nx....G\n", name="wide"),
    generate_map(seed=11, width=7, height=4),
]
ENV_OR_ABSORBED = (OUT_OF_BOUNDS, WALL_COLLISION, HAZARD_COLLISION, ABSORBED)
KERNELS = [(0, 0), (1, 0), (3 * Q, 5 * Q), (1000 * Q, 0), (2 * Q, 6 * Q), (Q, Q // 3)]


def _proposals(grid: GridMap, x: int, y: int) -> tuple[Proposal, ...]:
    scores = (3, -1, 7, 7, 0)
    return tuple(
        Proposal(a, (x + dx, y + dy), (x, y), abs(x - 2), scores[i] * Q, i)
        for i, (a, (dx, dy)) in enumerate((a, DELTAS[a]) for a in ACTIONS)
    )


@pytest.mark.parametrize("grid", MAPS, ids=lambda g: g.name)
def test_patches_are_the_observed_patches(grid: GridMap) -> None:
    tables = map_tables(grid.cells, KernelParams().risk_unit)
    for y, x in itertools.product(range(grid.height), range(grid.width)):
        state = GridState((x, y), grid.goal, 0, 1)
        assert tables.patches[(x, y)] == observe(grid.cells, state).patch


@pytest.mark.parametrize("grid", MAPS, ids=lambda g: g.name)
@pytest.mark.parametrize("governor", ["lexicographic", "none"])
def test_fast_decision_equals_the_reference_governor(
    grid: GridMap, governor: str
) -> None:
    params = KernelParams(e_max=6 * Q)
    tables = map_tables(grid.cells, params.risk_unit)
    checked = 0
    for (y, x), (b, e), work in itertools.product(
        itertools.product(range(grid.height), range(grid.width)),
        KERNELS,
        (0, 2 * Q, 4 * Q),
    ):
        proposals = _proposals(grid, x, y)
        kernel = KernelState(b, e)
        try:
            reference = decide(
                proposals,
                governor=governor,
                cells=grid.cells,
                position=(x, y),
                kernel=kernel,
                params=params,
                risks=tables.risks,
                move_work=work + Q,
                stay_work=work,
            )
        except AssertionError:
            with pytest.raises(AssertionError):
                decide_fast(
                    proposals, tables.moves[(x, y)], governed=True, b=b, e=e,
                    e_max=params.e_max, decay=params.decay,
                    move_work=work + Q, stay_work=work,
                )  # fmt: skip
            continue
        fast = decide_fast(
            proposals,
            tables.moves[(x, y)],
            governed=governor == "lexicographic",
            b=b,
            e=e,
            e_max=params.e_max,
            decay=params.decay,
            move_work=work + Q,
            stay_work=work,
        )
        assert fast[:2] == (reference.chosen, reference.reasons)
        assert fast[2] == [
            i
            for i, reasons in enumerate(reference.reasons)
            if reasons and not any(r in ENV_OR_ABSORBED for r in reasons)
        ]
        checked += 1
    assert checked > 100


def test_state_hasher_equals_state_hash() -> None:
    grid = MAPS[2]
    tables = map_tables(grid.cells, KernelParams().risk_unit)
    hasher = StateHasher(tables.grid_text, 77)
    for position, goal, t in [
        ((0, 0), (5, 2), 0),
        ((3, 1), (5, 2), 9),
        ((3, 1), (0, 2), 12),
    ]:
        expected = state_hash(GridState(position, goal, t, 77), tables.grid_text)
        assert hasher.hexdigest(position, goal, t) == expected


def test_proposal_set_info_matches_encodings_and_merkle_root() -> None:
    proposals = _proposals(MAPS[0], 4, 4)
    info = proposal_set_info(proposals)
    encoded = tuple(p.encode() for p in proposals)
    assert info.root == merkle_root(encoded)
    assert info.digests == tuple(p.digest() for p in proposals)
    reasons = ((), ("env:wall_collision",), (), ("a", "b"), ())
    assert info.decision_text(reasons) == ";".join(
        f"{c.decode()}:{','.join(r)}" for c, r in zip(encoded, reasons, strict=True)
    )


def test_collector_pauses_nest_and_restore_the_previous_state() -> None:
    import gc

    from gridworld.core.collector import collector_paused

    assert gc.isenabled()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # left off: it was off before
    finally:
        gc.enable()
