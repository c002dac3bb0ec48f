"""Each gate of the lexicographic governor does real work, live in a run.

Every scenario is a small non-square map where the proposer's favourite move is
refused by exactly one gate, and the agent takes another action instead.
"""

from __future__ import annotations

import pytest

from gridworld.core.episode import EpisodeConfig, run_episode
from gridworld.core.governor import NoSafeAction
from gridworld.core.grid import parse_map_text
from gridworld.core.kernel import KernelParams, KernelState, risk_table
from gridworld.core.proposers import Proposal
from gridworld.core.types import Q
from tests.gridworld.oracle import decide


def first_refused_favourite(text: str, *, budget: int = 1000) -> dict:
    config = EpisodeConfig(
        map=parse_map_text(text),
        seed=1,
        drift_period=0,
        max_steps=20,
        proposer="greedy",
        kernel=KernelParams(budget=budget * Q),
    )
    for step in run_episode(config).receipt["steps"]:
        decision = step["decision"]
        favourite = max(range(5), key=lambda i: (decision[i]["score"], -i))
        if decision[favourite]["reasons"]:
            assert step["chosen_proposal_index"] != favourite
            return {"step": step, "favourite": decision[favourite]}
    raise AssertionError("the favourite was never refused")


def test_gate1_environment_refuses_the_hazard_the_proposer_wants() -> None:
    found = first_refused_favourite("Sx.G\n....\n")
    assert found["favourite"]["action"] == "E"
    assert found["favourite"]["reasons"] == ["env:hazard_collision"]
    assert found["step"]["position"] == [0, 0]


def test_gate2_admissibility_refuses_exposure_beyond_e_max() -> None:
    found = first_refused_favourite(".x.xx..\nS.....G\nx...x..\n")
    assert found["favourite"]["reasons"] == ["kernel:inadmissible"]
    assert found["step"]["step"] == 2
    # the agent waits for its exposure to decay, then goes on and arrives
    assert found["step"]["action_taken"] == "Stay"


def test_gate3_lyapunov_refuses_a_risk_not_paid_for_by_work() -> None:
    found = first_refused_favourite(".xx..\nS...G\n..x..\n")
    (reason,) = found["favourite"]["reasons"]
    assert reason == "coh:lyapunov_increase_1000900000_1000000000"


def test_gate4_absorption_admits_only_stay_at_zero_budget() -> None:
    found = first_refused_favourite("S...G\n", budget=1)
    assert found["step"]["budget"] == 0
    assert found["favourite"]["reasons"] == ["abs:absorbed"]
    assert found["step"]["action_taken"] == "Stay"


def test_out_of_bounds_and_wall_reasons_are_recorded() -> None:
    config = EpisodeConfig(
        map=parse_map_text("S#\n.G\n"), seed=1, drift_period=0, proposer="greedy"
    )
    first = run_episode(config).receipt["steps"][0]["decision"]
    reasons = {p["action"]: p["reasons"] for p in first}
    assert reasons["N"] == ["env:out_of_bounds"]
    assert reasons["E"] == ["env:wall_collision"]
    assert reasons["W"] == ["env:out_of_bounds"]
    assert reasons["Stay"] == []


def test_no_safe_action_is_asserted_not_silently_skipped() -> None:
    grid = parse_map_text("S.G\n")
    hazard = Proposal("E", (1, 0), (1, 0), 1, 0, 0)
    with pytest.raises(NoSafeAction):
        decide(
            (hazard,),
            governor="lexicographic",
            cells=((0, 2, 0),),
            position=(0, 0),
            kernel=KernelState(Q, 0),
            params=KernelParams(),
            risks=risk_table(grid.cells, Q),
            move_work=Q,
            stay_work=0,
        )
