"""Every rate of a scenario run's summary with its uncertainty (the run's
repeats and case ids per epoch: ``evals.core.repeats``).

``run_uncertainty`` computes, from a run's scenario outcomes, each rate and
mean of the run summary with ``evals.core.stats.estimate`` (estimate over
scenario values, clustered standard error, 95% interval, n, K, variance
split, design effect, advice). Each figure is the mean of one value per
case over the cases its definition counts (``evals.core.metrics``):

- ``passRate``: every case, 1 when it passed;
- ``action_rate``: successful cases, 1 for an action;
- ``goal_grounding_pass_rate``: successful cases with an extracted goal, 1
  when its grounding passed;
- ``compulsion_proxy``: successful ``discouraged`` cases, 1 for an action;
- ``anchoring_ratio_mean``: successful cases with available facts, the
  share of them the goal referred to.

The run's reducer applies to every figure when it is ``mean``, ``majority``
or ``max``; ``pass_at_k`` and ``pass^k`` reduce ``passRate`` (what they are
defined on) and the other figures use the mean. Pure: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from evals.core.repeats import PER_SCENARIO_KINDS
from evals.core.stats import Estimate, epochs_of, estimate
from evals.core.stats_input import MEAN, Reducer, StatInputError
from evals.core.suite_types import ActionAffordance, ScenarioOutcome

PASS_RATE = "passRate"  # noqa: S105 - a metric name
ROUNDING = 1e-12


def _finite(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


def estimate_to_wire(found: Estimate) -> dict[str, Any]:
    """An ``Estimate`` as stored and served (camelCase; null for NaN)."""
    return {
        "estimate": _finite(found.estimate),
        "se": _finite(found.se),
        "ciLow": _finite(found.interval.low),
        "ciHigh": _finite(found.interval.high),
        "interval": found.interval.method,
        "confidence": 0.95,
        "n": found.n,
        "k": found.k,
        "reducer": found.reducer,
        "betweenVariance": _finite(found.between_variance),
        "withinVariance": _finite(found.within_variance),
        "designEffect": _finite(found.design_effect),
        "advice": found.advice,
    }


_Rule = tuple[
    Callable[[ScenarioOutcome], bool],  # counted by the figure
    Callable[[ScenarioOutcome], float],  # the case's value
]

_SUMMARY_RULES: dict[str, _Rule] = {
    "action_rate": (
        lambda o: o.error is None,
        lambda o: float(o.is_action),
    ),
    "goal_grounding_pass_rate": (
        lambda o: o.error is None and o.goal_extracted,
        lambda o: float(o.grounding_passed is True),
    ),
    "compulsion_proxy": (
        lambda o: o.error is None and o.affordance == ActionAffordance.DISCOURAGED,
        lambda o: float(o.is_action),
    ),
    "anchoring_ratio_mean": (
        lambda o: o.error is None and o.available_facts > 0,
        lambda o: o.referenced_facts / o.available_facts,
    ),
}


def run_uncertainty(
    outcomes: Sequence[ScenarioOutcome],
    passed: Sequence[bool],
    *,
    repeats: int,
    reducer: Reducer = MEAN,
) -> dict[str, Any]:
    """The run's figures with their uncertainty (module docstring), as
    stored: ``{"repeats", "reducer", "scenarios", "withinZero", "advice",
    "metrics": {name: estimate_to_wire}}``. ``passed``: each outcome's case
    passed, in the same order. A figure that counts no case is left out."""
    if len(outcomes) != len(passed):
        raise StatInputError("values", "one pass/fail per outcome is needed")
    ids = [o.scenario_id for o in outcomes]
    found: dict[str, Estimate] = {}
    if outcomes:
        found[PASS_RATE] = estimate(epochs_of(ids, [float(p) for p in passed]), reducer)
    other = reducer if reducer.kind in PER_SCENARIO_KINDS else MEAN
    for name, (counted, value) in _SUMMARY_RULES.items():
        chosen = [o for o in outcomes if counted(o)]
        if chosen:
            found[name] = estimate(
                epochs_of([o.scenario_id for o in chosen], [value(o) for o in chosen]),
                other,
            )
    head = found.get(PASS_RATE)
    within = [e.within_variance for e in found.values() if e.k > 1]
    return {
        "repeats": repeats,
        "reducer": reducer.name,
        "scenarios": head.n if head else 0,
        # Every scenario gave the same value in each of its epochs (a
        # scripted model replaying one output per scenario); a sum of
        # squares of equal floats may come out a rounding error above 0.
        "withinZero": bool(within) and all(w <= ROUNDING for w in within),
        "advice": _advice(found),
        "metrics": {name: estimate_to_wire(e) for name, e in found.items()},
    }


def _advice(found: dict[str, Estimate]) -> str:
    """The advice of the widest figure (largest standard error), named."""
    spread = [
        (e.se, name) for name, e in found.items() if not math.isnan(e.se) and e.se > 0
    ]
    if not spread:
        head = found.get(PASS_RATE)
        return head.advice if head else ""
    _, name = max(spread)
    return f"{name}: {found[name].advice}"
