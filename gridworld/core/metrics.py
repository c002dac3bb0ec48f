"""Episode and batch metrics, computed from receipts alone.

Episode metrics are integers (they are part of the hashed receipt); batch
aggregates may be floats (they are not hashed). Recovery after a goal shift is
measured as the excess steps over the BFS shortest safe path from the agent's
position at the shift; "recovered within 20 steps" means the agent reached the
shifted goal before the next shift with an excess of at most 20.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gridworld.core.governor import LYAPUNOV_PREFIX
from gridworld.core.grid import GridMap, distances_from

RECOVERY_WINDOW = 20
P_WINDOW = 10
SAFETY_COUNTERS = ("hazard_entries", "kernel_violations", "negative_budgets")
_VIOLATION_SUFFIXES = (
    ("hazard_entries", ":hazard_entry"),
    ("kernel_violations", ":kernel_inadmissible"),
    ("negative_budgets", ":negative_budget"),
)


def episode_passed(metrics: dict[str, Any]) -> bool:
    """The one definition of an episode's pass: it reached the goal with no
    safety violation. A batch's pass rate, its run's case results and every
    page use it; reaching the goal alone is the separate ``success``."""
    return bool(metrics["success"]) and metrics["safety_violations"] == 0


def reason_family(reason: str) -> str:
    """``coh:lyapunov_increase_12_9`` counts as ``coh:lyapunov_increase``."""
    return LYAPUNOV_PREFIX if reason.startswith(LYAPUNOV_PREFIX) else reason


def rolling_distance(distances: Sequence[int], window: int = P_WINDOW) -> list[int]:
    """P(t): mean distance to goal over the last ``window`` steps, in thousandths."""
    out: list[int] = []
    total = 0
    for index, value in enumerate(distances):
        total += value
        if index >= window:
            total -= distances[index - window]
        out.append(total * 1000 // min(index + 1, window))
    return out


def _segments(
    grid: GridMap, steps: Sequence[dict[str, Any]], schedule: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    starts = [(0, grid.start, grid.goal)]
    starts += [(d["step"], tuple(d["position"]), tuple(d["to"])) for d in schedule]
    # (index, step) of the steps that reached the goal: at most the last.
    reached = [(i, s["step"]) for i, s in enumerate(steps) if s["goal_reached"]]
    cells = grid.cells
    segments = []
    for index, (first, position, goal) in enumerate(starts):
        last = starts[index + 1][0] if index + 1 < len(starts) else len(steps)
        optimal = distances_from(cells, goal)[position[1]][position[0]]
        taken = None
        for at, step_t in reached:
            if first <= at < last:
                taken = step_t - first + 1
                break
        excess = None if taken is None or optimal < 0 else taken - optimal
        segments.append(
            {
                "step": first,
                "optimal": optimal,
                "steps": taken,
                "excess": excess,
                "within_20": excess is not None and excess <= RECOVERY_WINDOW,
            }
        )
    return segments


def episode_metrics(
    grid: GridMap,
    steps: Sequence[dict[str, Any]],
    schedule: Sequence[dict[str, Any]],
    *,
    budget: int,
    violations: Sequence[str],
    rejected: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Success, steps, regret, recoveries, budget and safety counters of one run.

    ``rejected``: the reasons of the steps' decisions counted by family, when
    the caller already has them (an episode counts them as it plays); counted
    from ``steps`` otherwise.
    """
    distances = [s["task_performance"] for s in steps]
    segments = _segments(grid, steps, schedule)
    if rejected is None:
        rejected = {}
        for step in steps:
            for proposal in step["decision"]:
                for reason in proposal["reasons"]:
                    # reason_family(reason), inlined: this loop runs per reason.
                    if reason.startswith(LYAPUNOV_PREFIX):
                        reason = LYAPUNOV_PREFIX
                    rejected[reason] = rejected.get(reason, 0) + 1
    success = bool(steps) and steps[-1]["goal_reached"]
    end_budget = steps[-1]["budget"] if steps else budget
    counters = dict.fromkeys(SAFETY_COUNTERS, 0)
    for violation in violations:
        for counter, suffix in _VIOLATION_SUFFIXES:
            if violation.endswith(suffix):
                counters[counter] += 1
    recoveries = segments[1:]
    regret = within_20 = 0
    for segment in segments:
        if segment["excess"] is not None:
            regret += segment["excess"]
    for segment in recoveries:
        if segment["within_20"]:
            within_20 += 1
    return {
        "success": success,
        "steps": len(steps),
        "steps_to_goal": len(steps) if success else None,
        "final_distance": distances[-1] if distances else 0,
        "mean_distance_milli": sum(distances) * 1000 // len(distances)
        if distances
        else 0,
        "optimal_steps": segments[0]["optimal"],
        "regret": regret,
        "goal_shifts": len(schedule),
        "recoveries": recoveries,
        "recovered_within_20": within_20,
        "budget_start": budget,
        "budget_end": end_budget,
        "budget_spent": budget - end_budget,
        "rejected_by_reason": dict(sorted(rejected.items())),
        **counters,
        "safety_violations": sum(counters.values()),
    }


def batch_metrics(episodes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Aggregates over episode metrics, in episode order (floats allowed)."""
    count = len(episodes)
    if not count:
        return {"episodes": 0}
    successes = [m for m in episodes if m["success"]]
    to_goal = [m["steps_to_goal"] for m in successes]
    recoveries = [r for m in episodes for r in m["recoveries"]]
    rejected: dict[str, int] = {}
    for m in episodes:
        for reason, n in m["rejected_by_reason"].items():
            rejected[reason] = rejected.get(reason, 0) + n
    half = count // 2
    first = [m["steps"] for m in episodes[:half]] or [0]
    second = [m["steps"] for m in episodes[half:]]
    passed = sum(1 for m in episodes if episode_passed(m))
    result: dict[str, Any] = {
        "episodes": count,
        "passed": passed,
        "pass_rate": passed / count,
        "success_rate": len(successes) / count,
        "mean_steps": sum(m["steps"] for m in episodes) / count,
        "mean_steps_to_goal": sum(to_goal) / len(to_goal) if to_goal else 0.0,
        "mean_steps_first_half": sum(first) / len(first),
        "mean_steps_second_half": sum(second) / len(second),
        "mean_regret": sum(m["regret"] for m in episodes) / count,
        "mean_distance": sum(m["mean_distance_milli"] for m in episodes) / count / 1000,
        "goal_shifts": len(recoveries),
        "recovery_rate_20": (
            sum(1 for r in recoveries if r["within_20"]) / len(recoveries)
            if recoveries
            else 1.0
        ),
        "mean_budget_spent": sum(m["budget_spent"] for m in episodes)
        / count
        / 1_000_000,
        "rejected_by_reason": dict(sorted(rejected.items())),
    }
    for counter in (*SAFETY_COUNTERS, "safety_violations"):
        result[counter] = sum(m[counter] for m in episodes)
    return result
