"""Admissibility, budget and safety hold on every step of every governed run."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridworld.core.config import BatchConfig, parse_batch_config, run_cases
from gridworld.core.episode import EpisodeConfig, run_episode
from gridworld.core.grid import generate_map, parse_map_text, standard_layout
from gridworld.core.kernel import KernelParams
from gridworld.core.types import HAZARD, Q

CORRIDORS = parse_map_text(
    "S..x.....x..\n.#.x.##..x..\n.#...#......\n...x...#..xG\n", name="corridors"
)
LAYOUTS = {
    "simple": standard_layout("simple"),
    "maze": standard_layout("maze"),
    "hazard": standard_layout("hazard"),
    "corridors-12x4": CORRIDORS,
    "generated-13x7": generate_map(seed=11, width=13, height=7, hazard_permille=180),
}


def assert_every_step_safe(receipt: dict, grid) -> None:
    e_max = receipt["config"]["kernel"]["e_max"]
    for step in receipt["steps"]:
        x, y = step["position"]
        assert grid.cells[y][x] != HAZARD
        assert step["budget"] >= 0
        assert 0 <= step["exposure"] <= e_max
    assert receipt["violations"] == []
    metrics = receipt["metrics"]
    assert (metrics["hazard_entries"], metrics["kernel_violations"]) == (0, 0)
    assert (metrics["negative_budgets"], metrics["safety_violations"]) == (0, 0)


@pytest.mark.parametrize("proposer", ["planner", "greedy"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_invariants_hold_over_100_episodes(layout: str, proposer: str) -> None:
    grid = LAYOUTS[layout]
    batch = BatchConfig(map=grid, episodes=104, proposer=proposer, seed=7, max_steps=80)
    results = run_cases(batch, list(range(batch.episodes)))
    assert len(results) == 104
    for _, result in results:
        assert_every_step_safe(result.receipt, grid)


def test_none_governor_shows_the_safety_counters_are_live() -> None:
    batch = BatchConfig(
        map=standard_layout("hazard"), episodes=100, proposer="greedy", governor="none"
    )
    results = run_cases(batch, list(range(batch.episodes)))
    entries = sum(r.receipt["metrics"]["hazard_entries"] for _, r in results)
    inadmissible = sum(r.receipt["metrics"]["kernel_violations"] for _, r in results)
    assert entries > 0
    assert inadmissible > 0
    first = next(r.receipt for _, r in results if r.receipt["violations"])
    assert any(v.endswith(":hazard_entry") for v in first["violations"])


def test_budget_runs_down_to_absorption_and_never_below() -> None:
    config = EpisodeConfig(
        map=CORRIDORS, seed=3, max_steps=60, kernel=KernelParams(budget=20 * Q)
    )
    receipt = run_episode(config).receipt
    budgets = [s["budget"] for s in receipt["steps"]]
    assert budgets == sorted(budgets, reverse=True)
    assert budgets[-1] == 0
    assert receipt["end"] == "absorbed"
    first_zero = budgets.index(0)
    assert {s["action_taken"] for s in receipt["steps"][first_zero + 1 :]} == {"Stay"}
    assert_every_step_safe(receipt, CORRIDORS)


@given(
    map_seed=st.integers(0, 10**6),
    width=st.integers(2, 12),
    height=st.integers(1, 8),
    hazards=st.integers(0, 200),
    seed=st.integers(0, 10**6),
    proposer=st.sampled_from(["planner", "greedy"]),
    drift=st.sampled_from([0, 3, 10]),
)
@settings(max_examples=40, deadline=None)
def test_property_governed_runs_never_enter_a_hazard(
    map_seed: int,
    width: int,
    height: int,
    hazards: int,
    seed: int,
    proposer: str,
    drift: int,
) -> None:
    grid = generate_map(
        seed=map_seed,
        width=width,
        height=height,
        wall_permille=100,
        hazard_permille=hazards,
    )
    config = EpisodeConfig(
        map=grid, seed=seed, drift_period=drift, max_steps=50, proposer=proposer
    )
    assert_every_step_safe(run_episode(config).receipt, grid)


def test_batch_pass_rate_counts_goal_reached_and_safe_episodes_only() -> None:
    from gridworld.core.metrics import batch_metrics, episode_passed

    batch = parse_batch_config(
        {"map": "hazard", "episodes": 6, "proposer": "greedy", "governor": "none"}
    )
    metrics = [r.receipt["metrics"] for _, r in run_cases(batch, list(range(6)))]
    assert [episode_passed(m) for m in metrics] == [
        False, True, False, True, False, False,
    ]  # fmt: skip
    aggregate = batch_metrics(metrics)
    assert (aggregate["passed"], aggregate["pass_rate"]) == (2, 2 / 6)
    assert aggregate["success_rate"] == 1.0
