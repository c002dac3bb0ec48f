"""Repeated trials of a scenario run and every rate of its summary with its
uncertainty.

A run may try each scenario K times (``repeats``, 1..``MAX_REPEATS``). With
K = 1 a case id is its scenario id, as before repeats existed; with K > 1
epoch e of scenario s is the case ``s#e`` (``evals.core.stats.split_epoch``
reads it back), epochs 0..K-1.

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

from evals.core.stats import Estimate, epochs_of, estimate
from evals.core.stats_input import (
    MAX_REPEATS,
    MEAN,
    Reducer,
    ReducerKind,
    StatInputError,
    parse_reducer,
)
from evals.core.suite_types import ActionAffordance, ScenarioOutcome

PASS_RATE = "passRate"  # noqa: S105 - a metric name
WITHIN_ZERO = (
    "Every epoch of each scenario gave the same result (within-scenario "
    "variance 0): the model replays one output per scenario, so repeats add "
    "no information; add scenarios instead."
)
ROUNDING = 1e-12
_PER_SCENARIO_KINDS = (ReducerKind.MEAN, ReducerKind.MAJORITY, ReducerKind.MAX)


def check_repeats(value: object) -> int:
    """``value`` as a number of repeats (a whole number 1..``MAX_REPEATS``);
    ``StatInputError`` naming ``repeats`` otherwise (``"x"``, 2.5, 0, 101)."""
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        number = None
    if number is None:
        raise StatInputError("repeats", f"must be a whole number, got {value!r}")
    if not 1 <= number <= MAX_REPEATS:
        raise StatInputError("repeats", f"must be 1..{MAX_REPEATS}, got {number}")
    return number


def check_reducer(text: str, repeats: int) -> Reducer:
    """The run's reducer (``parse_reducer``); ``StatInputError`` naming
    ``reducer`` when unknown or when ``pass_at_k``/``pass^k`` asks for more
    epochs than the run has."""
    reducer = parse_reducer(text)
    if reducer.kind not in _PER_SCENARIO_KINDS and reducer.k > repeats:
        raise StatInputError(
            "reducer",
            f"{reducer.name} needs at least {reducer.k} repeats; the run has {repeats}",
        )
    return reducer


def epoch_case_id(scenario_id: str, epoch: int, repeats: int) -> str:
    """The case id of ``epoch`` of ``scenario_id`` in a run of ``repeats``."""
    return scenario_id if repeats == 1 else f"{scenario_id}#{epoch}"


def repeat_case_ids(scenario_ids: Sequence[str], repeats: int) -> list[str]:
    """Every case of a run: each scenario's epochs together, in suite order."""
    return [
        epoch_case_id(scenario_id, epoch, repeats)
        for scenario_id in scenario_ids
        for epoch in range(repeats)
    ]


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
    other = reducer if reducer.kind in _PER_SCENARIO_KINDS else MEAN
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


def reducer_of(config: dict[str, Any]) -> Reducer:
    """A stored run's reducer (the mean when its config names none)."""
    name = config.get("reducer")
    return parse_reducer(name) if isinstance(name, str) else MEAN


def repeats_of(config: dict[str, Any]) -> int:
    """A stored run's repeats (1 when its config names none: a run made
    before repeats existed)."""
    value = config.get("repeats", 1)
    return value if isinstance(value, int) and value >= 1 else 1


def _two(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "—"


def format_figure(figure: dict[str, Any]) -> str:
    """A stored figure in words: ``0.83 (95% CI 0.71–0.92), n = 20
    scenarios, K = 5`` (no interval below 2 scenarios)."""
    interval = (
        f" (95% CI {_two(figure.get('ciLow'))}–{_two(figure.get('ciHigh'))})"
        if figure.get("ciLow") is not None
        else " (no interval)"
    )
    n = figure.get("n", 0)
    noun = "scenario" if n == 1 else "scenarios"
    k = figure.get("k", 1)
    return f"{_two(figure.get('estimate'))}{interval}, n = {n} {noun}, K = {k}"


def shows_repeats(config: dict[str, Any]) -> bool:
    """A run made with repeats or a reducer other than the mean (whose
    answers and printouts name them; other runs keep theirs as they were)."""
    return "repeats" in config or "reducer" in config
