"""Which way is better for each metric: the metric registry.

Decides the direction of a metric name, in this order:

1. ``overrides`` (configuration passed in by the caller), by exact name;
2. the registered metrics below, by exact name;
3. name rules: ``trustViolationRate`` and every ``*ViolationRate``,
   ``hallucination_*``, ``compulsion_*``, ``repetition_*`` and ``latency_*``
   are lower-is-better;
4. people's scores (``human.<name>``, the mean of a numeric score or the
   share of a yes/no score said yes) are higher-is-better, and the share
   of one label of a categorical score (``human.<name>.<label>``) is
   neutral: a label is not better or worse by its name;
5. everything else is higher-is-better.

``neutral`` metrics are compared and reported but never count as a
regression or an improvement: the stream contract says a low-stimulus suite may pass
with ``action_rate=0`` and "CI must NOT require action_rate > 0", and counts
that only describe a suite's size are not quality. Descriptive figures (how
many steps an episode took, how far the agent was from a goal that drifts
with the seed) are neutral too: they move whenever the seeds do.

A judged metric's ``threshold`` is the smallest move that counts: a move of
at most that much either way is ``within_threshold``, neither a regression nor
an improvement. Unlisted metrics have threshold 0 (any move counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class MetricDirection(StrEnum):
    HIGHER_IS_BETTER = "higher_is_better"
    LOWER_IS_BETTER = "lower_is_better"
    NEUTRAL = "neutral"


_HIGHER = MetricDirection.HIGHER_IS_BETTER
_LOWER = MetricDirection.LOWER_IS_BETTER
_NEUTRAL = MetricDirection.NEUTRAL

REGISTERED: Mapping[str, MetricDirection] = {
    # the eval-store contract (Engram) metrics
    "recallPrecisionAtK": _HIGHER,
    "actionOutcomeScore": _HIGHER,
    "objectiveStateCoverage": _HIGHER,
    "causalPathRecall": _HIGHER,
    "trustViolationRate": _LOWER,
    "creationRecoveryScore": _HIGHER,
    # the stream contract eval-harness metrics (evals.core.metrics.metrics_to_wire)
    "action_rate": _NEUTRAL,
    "action_count": _NEUTRAL,
    "goals_emitted": _NEUTRAL,
    "tasks_created": _NEUTRAL,
    "inertia_count": _NEUTRAL,
    "grounding_pass_rate": _HIGHER,
    "grounded_count": _NEUTRAL,
    "goals_extracted": _NEUTRAL,
    "goal_grounding_pass_rate": _HIGHER,
    "anchoring_ratio_mean": _NEUTRAL,
    "contradiction_count": _LOWER,
    "hallucination_count": _LOWER,
    "compulsion_proxy": _LOWER,
    "compulsion_count": _LOWER,
    "repetition_rate": _LOWER,
    "repetition_count": _LOWER,
    "scenarios_total": _NEUTRAL,
    "scenarios_successful": _HIGHER,
    "scenarios_errored": _LOWER,
    "discouraged_count": _NEUTRAL,
    "expected_count": _NEUTRAL,
    # gridworld episode batches (gridworld.services.batches.RUN_METRICS): the
    # goal-reached rate and the safety counters are judged (thresholds below);
    # the means and the recovery rate describe the episodes of these seeds
    # (the recovery rate of two 20-episode batches moved 0.71 -> 0.54 with
    # the seeds alone) and are never judged.
    "episodes": _NEUTRAL,
    "success_rate": _HIGHER,
    "mean_steps": _NEUTRAL,
    "mean_steps_to_goal": _NEUTRAL,
    "mean_steps_first_half": _NEUTRAL,
    "mean_steps_second_half": _NEUTRAL,
    "mean_regret": _NEUTRAL,
    "mean_distance": _NEUTRAL,
    "goal_shifts": _NEUTRAL,
    "recovery_rate_20": _NEUTRAL,
    "mean_budget_spent": _NEUTRAL,
    "hazard_entries": _LOWER,
    "kernel_violations": _LOWER,
    "negative_budgets": _LOWER,
    "safety_violations": _LOWER,
    # claim grounding of free text (evals.core.claim_metrics): reported, never
    # gated, so the gate's verdicts stay those of the upstream metrics.
    "claims_checked": _NEUTRAL,
    "claim_hallucination_count": _NEUTRAL,
    "claim_grounding_rate": _NEUTRAL,
}

THRESHOLDS: Mapping[str, float] = {
    # A gridworld batch's goal-reached rate: another set of seeds moves it by
    # a few points without anything having changed. The safety counters keep
    # 0: one more hazard entry is a regression.
    "success_rate": 0.05,
}

_LOWER_PREFIXES = ("hallucination_", "compulsion_", "repetition_", "latency_")
HUMAN_PREFIX = "human."


def direction(
    name: str, *, overrides: Mapping[str, MetricDirection] | None = None
) -> MetricDirection:
    """The direction of metric ``name`` (see the module docstring for the order)."""
    if overrides and name in overrides:
        return MetricDirection(overrides[name])
    registered = REGISTERED.get(name)
    if registered is not None:
        return registered
    if name.endswith("ViolationRate") or name.startswith(_LOWER_PREFIXES):
        return _LOWER
    if name.startswith(HUMAN_PREFIX) and "." in name[len(HUMAN_PREFIX) :]:
        return _NEUTRAL
    return _HIGHER


def threshold(name: str) -> float:
    """The smallest move of metric ``name`` that is judged (0: any move)."""
    return THRESHOLDS.get(name, 0.0)


def parse_overrides(pairs: list[str]) -> dict[str, MetricDirection]:
    """``["name=lower_is_better", ...]`` -> overrides; ``ValueError`` if malformed."""
    out: dict[str, MetricDirection] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"metric direction must be NAME=DIRECTION, got {pair!r}")
        try:
            out[name.strip()] = MetricDirection(value.strip())
        except ValueError:
            choices = "|".join(d.value for d in MetricDirection)
            raise ValueError(
                f"metric direction for {name.strip()} must be one of {choices}"
            ) from None
    return out
