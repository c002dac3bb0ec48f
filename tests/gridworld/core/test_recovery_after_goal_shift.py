"""Recovery after a goal shift: excess steps over the BFS optimum from the shift."""

from __future__ import annotations

from gridworld.core.config import BatchConfig, run_cases
from gridworld.core.episode import EpisodeConfig, run_episode
from gridworld.core.grid import distances_from, generate_map, parse_map_text
from gridworld.core.metrics import batch_metrics

WIDE = generate_map(seed=5, width=16, height=7, wall_permille=150, hazard_permille=120)


def test_goal_shifts_follow_the_drift_schedule() -> None:
    config = EpisodeConfig(map=WIDE, seed=8, drift_period=7, max_steps=60)
    receipt = run_episode(config).receipt
    schedule = receipt["drift_schedule"]
    assert schedule
    assert all(d["step"] % 7 == 0 and d["step"] > 0 for d in schedule)
    for shift in schedule:
        step = receipt["steps"][shift["step"]]
        assert step["goal"] == shift["to"] or step["goal_reached"] is False


def test_recovery_is_excess_over_the_shortest_safe_path_from_the_shift() -> None:
    config = EpisodeConfig(map=WIDE, seed=2, drift_period=12, max_steps=120)
    receipt = run_episode(config).receipt
    metrics = receipt["metrics"]
    assert metrics["goal_shifts"] == len(receipt["drift_schedule"]) >= 1
    for shift, recovery in zip(
        receipt["drift_schedule"], metrics["recoveries"], strict=True
    ):
        goal, (x, y) = tuple(shift["to"]), shift["position"]
        optimal = distances_from(WIDE.cells, goal)[y][x]
        assert recovery["optimal"] == optimal
        if recovery["steps"] is not None:
            assert recovery["excess"] == recovery["steps"] - optimal
            assert recovery["within_20"] == (recovery["excess"] <= 20)


def test_planner_recovers_within_20_steps_after_most_shifts_with_no_violation() -> None:
    batch = BatchConfig(map=WIDE, episodes=40, seed=11, drift_period=25, max_steps=150)
    results = run_cases(batch, list(range(batch.episodes)))
    aggregate = batch_metrics([r.receipt["metrics"] for _, r in results])
    assert aggregate["goal_shifts"] >= 5
    assert aggregate["recovery_rate_20"] >= 0.8
    assert aggregate["safety_violations"] == 0


def test_a_shift_onto_a_far_goal_is_reported_even_when_not_recovered() -> None:
    grid = parse_map_text("S.........\n..........\n.........G\n", name="strip")
    config = EpisodeConfig(map=grid, seed=1, drift_period=2, max_steps=6)
    metrics = run_episode(config).receipt["metrics"]
    assert metrics["goal_shifts"] >= 1
    assert all(
        set(r) == {"step", "optimal", "steps", "excess", "within_20"}
        for r in metrics["recoveries"]
    )
