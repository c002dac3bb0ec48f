"""Competence: the agent reaches goals, learns the map, and needs its budget."""

from __future__ import annotations

from gridworld.core.config import BatchConfig, run_cases
from gridworld.core.grid import generate_map, standard_layout
from gridworld.core.metrics import batch_metrics, rolling_distance

WIDE = generate_map(seed=20, width=15, height=6, wall_permille=250, hazard_permille=100)


def metrics_of(batch: BatchConfig) -> list[dict]:
    return [
        r.receipt["metrics"] for _, r in run_cases(batch, list(range(batch.episodes)))
    ]


def test_steps_to_goal_fall_over_episodes_as_the_planner_learns_the_map() -> None:
    for grid in (standard_layout("maze"), WIDE):
        batch = BatchConfig(map=grid, episodes=6, seed=1, drift_period=0, lane_size=6)
        steps = [m["steps_to_goal"] for m in metrics_of(batch)]
        assert None not in steps
        assert steps[0] > steps[-1]
        assert steps[1:] == sorted(steps[1:], reverse=True)
        assert steps[-1] == metrics_of(batch)[-1]["optimal_steps"]


def test_memory_is_per_lane_so_a_new_lane_starts_from_scratch() -> None:
    batch = BatchConfig(
        map=standard_layout("maze"), episodes=4, seed=1, drift_period=0, lane_size=2
    )
    steps = [m["steps"] for m in metrics_of(batch)]
    assert steps[0] == steps[2] > steps[1] == steps[3]


def test_greedy_cannot_solve_the_maze_and_the_planner_can() -> None:
    for proposer, expected in (("greedy", 0.0), ("planner", 1.0)):
        batch = BatchConfig(
            map=standard_layout("maze"), episodes=4, proposer=proposer, drift_period=0
        )
        assert batch_metrics(metrics_of(batch))["success_rate"] == expected


def test_success_rate_is_high_on_every_layout_with_a_drifting_goal() -> None:
    for name in ("simple", "maze", "hazard"):
        batch = BatchConfig(map=standard_layout(name), episodes=40, seed=3)
        aggregate = batch_metrics(metrics_of(batch))
        assert aggregate["success_rate"] >= 0.9, name
        assert aggregate["safety_violations"] == 0


def test_more_budget_gives_more_success() -> None:
    rates = []
    for budget in (10, 60, 1000):
        batch = BatchConfig(
            map=standard_layout("hazard"), episodes=30, budget=budget, max_steps=60
        )
        rates.append(batch_metrics(metrics_of(batch))["success_rate"])
    assert rates[0] == 0.0
    assert rates[0] < rates[1] < rates[2] == 1.0


def test_rolling_distance_falls_within_an_episode() -> None:
    batch = BatchConfig(map=WIDE, episodes=1, drift_period=0)
    (result,) = run_cases(batch, [0])
    distances = [s["task_performance"] for s in result[1].receipt["steps"]]
    p_t = rolling_distance(distances)
    assert p_t[-1] < p_t[0]
    assert rolling_distance([4, 2, 0], window=2) == [4000, 3000, 1000]


def test_exhausted_budget_freezes_the_agent_instead_of_gaming_the_metric() -> None:
    batch = BatchConfig(map=standard_layout("simple"), episodes=1, budget=20)
    (metrics,) = metrics_of(batch)
    assert not metrics["success"]
    assert metrics["budget_end"] == 0
    assert metrics["final_distance"] > 0
