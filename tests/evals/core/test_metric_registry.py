"""A judged metric must move by more than its registered threshold to be a
regression or an improvement; descriptive gridworld metrics are never judged."""

from __future__ import annotations

from pathlib import Path

from evals.core.gate import DeltaOutcome, evaluate_gate
from evals.core.metric_registry import MetricDirection, direction, threshold
from tests.evals.core.test_gate import make_store, run

BENCHMARK = "gridworld:hazard:planner:lexicographic"


def gate(tmp_path: Path, before: dict[str, float], after: dict[str, float]):
    base = make_store(tmp_path / "base", [run("b", BENCHMARK, 20, 20, metrics=before)])
    candidate = make_store(
        tmp_path / "cand", [run("c", BENCHMARK, 20, 20, metrics=after)]
    )
    return evaluate_gate(base=base, candidate=candidate)


def test_descriptive_gridworld_metrics_are_neutral() -> None:
    for name in (
        "mean_steps",
        "mean_steps_to_goal",
        "mean_steps_first_half",
        "mean_steps_second_half",
        "mean_regret",
        "mean_distance",
        "mean_budget_spent",
        "recovery_rate_20",
        "goal_shifts",
        "episodes",
    ):
        assert direction(name) is MetricDirection.NEUTRAL, name
    assert direction("success_rate") is MetricDirection.HIGHER_IS_BETTER
    assert direction("safety_violations") is MetricDirection.LOWER_IS_BETTER
    assert threshold("success_rate") == 0.05
    assert threshold("safety_violations") == 0.0


def test_gridworld_means_moving_with_the_seeds_pass_the_gate(tmp_path: Path) -> None:
    verdict = gate(
        tmp_path,
        {"mean_distance": 8.2865, "success_rate": 1.0, "safety_violations": 0},
        {"mean_distance": 8.5454, "success_rate": 1.0, "safety_violations": 0},
    )
    assert verdict.passed
    assert verdict.regressions == ()
    outcomes = {m.name: m.outcome for m in verdict.deltas[0].metric_deltas}
    assert outcomes["mean_distance"] is DeltaOutcome.NEUTRAL


def test_a_move_within_the_threshold_is_not_judged(tmp_path: Path) -> None:
    verdict = gate(tmp_path, {"success_rate": 1.0}, {"success_rate": 0.95})
    assert verdict.passed
    outcome = verdict.deltas[0].metric_deltas[0].outcome
    assert outcome is DeltaOutcome.WITHIN_THRESHOLD


def test_a_move_past_the_threshold_and_any_safety_violation_regress(
    tmp_path: Path,
) -> None:
    verdict = gate(
        tmp_path,
        {"success_rate": 1.0, "safety_violations": 0},
        {"success_rate": 0.9, "safety_violations": 1},
    )
    assert not verdict.passed
    assert verdict.regressions == (
        f"{BENCHMARK} safety_violations 0 -> 1",
        f"{BENCHMARK} success_rate 1 -> 0.9",
    )
