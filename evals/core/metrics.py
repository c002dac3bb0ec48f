"""Run metrics and the property verdict of a scenario-suite run (EV-C5, EV-C7).

Decides the numbers that answer "does the agent act too much, too little,
or make things up?", and whether a run PASSes.

Definitions, as the reference harness computes them, all over *successful*
scenarios (``error is None``) in the order given (suite order):
- action: a convert-eligible goal: a goal was extracted AND its grounding
  passed (``ScenarioOutcome.is_action``).
- ``action_rate`` = actions / successful (0.0 when nothing succeeded).
- ``grounding_pass_rate`` = actions whose grounding passed / actions (1.0
  when there was no action); every action passed grounding, so this is 1.0
  by construction, as in the reference. ``goal_grounding_pass_rate`` is
  the informative one: extracted goals whose grounding passed / extracted
  goals (1.0 when none).
- ``repetition_rate`` = share of outputs whose lowercased,
  whitespace-collapsed text is in the set of the last 5 *distinct* outputs
  seen before it (first in, first out; a repeat does not refresh its place).
- ``compulsion_count`` = actions in ``discouraged`` scenarios;
  ``compulsion_proxy`` = that count / successful discouraged scenarios.
- ``inertia_count`` = ``expected`` scenarios without an action (reported,
  never failing).
- ``hallucination_count`` = scenarios whose goal referred to something the
  frame does not hold (fabricated entity, item or location), also split per
  category; a contradiction is counted apart (``contradiction_count``).
- ``anchoring_ratio_mean`` = mean of referenced facts / available facts over
  scenarios with available facts (0.0 when none).
- latency p50/p95 by nearest rank: the value at index ceil(p*n)-1 of the
  sorted latencies (0.0 when none).

Verdict: PASS = no hallucination and no compulsion; ``action_rate`` may be
zero (EV-C7). See ``VerdictProperty`` for the three guard properties that a
correct pipeline always satisfies. Pure and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core.whitespace import collapse_js_whitespace
from evals.core.suite_types import (
    ActionAffordance,
    EvalMetrics,
    EvalVerdict,
    HallucinationCategory,
    ScenarioOutcome,
    ScenarioVerdict,
    VerdictProperty,
)
from stream.core.types import SituationFacts

REPETITION_WINDOW = 5
METRIC_DECIMALS = 4


def compute_metrics(outcomes: Sequence[ScenarioOutcome]) -> EvalMetrics:
    """EV-C5 metrics of ``outcomes`` (in suite order; order matters only for
    ``repetition_rate``)."""
    successful = [o for o in outcomes if o.error is None]
    actions = [o for o in successful if o.is_action]
    grounded = [o for o in actions if o.grounding_passed is True]
    extracted = [o for o in successful if o.goal_extracted]
    grounded_goals = [o for o in extracted if o.grounding_passed is True]
    anchoring = [
        o.referenced_facts / o.available_facts
        for o in successful
        if o.available_facts > 0
    ]
    discouraged = [
        o for o in successful if o.affordance == ActionAffordance.DISCOURAGED
    ]
    expected = [o for o in successful if o.affordance == ActionAffordance.EXPECTED]
    compulsions = [o for o in discouraged if o.is_action]
    by_category = {category: 0 for category in HallucinationCategory}
    for outcome in successful:
        if outcome.hallucination_category is not None:
            by_category[HallucinationCategory(outcome.hallucination_category)] += 1
    repetitions = _repetition_count([o.output_text for o in successful])
    latencies = sorted(o.latency_ms for o in successful)
    task_counts = [o.tasks_created for o in outcomes if o.tasks_created is not None]

    return EvalMetrics(
        action_rate=_ratio(len(actions), len(successful), empty=0.0),
        grounding_pass_rate=_ratio(len(grounded), len(actions), empty=1.0),
        repetition_rate=_ratio(repetitions, len(successful), empty=0.0),
        compulsion_proxy=_ratio(len(compulsions), len(discouraged), empty=0.0),
        compulsion_count=len(compulsions),
        inertia_count=sum(1 for o in expected if not o.is_action),
        hallucination_count=sum(by_category.values()),
        hallucination_missing_entity=by_category[HallucinationCategory.MISSING_ENTITY],
        hallucination_missing_item=by_category[HallucinationCategory.MISSING_ITEM],
        hallucination_missing_location=by_category[
            HallucinationCategory.MISSING_LOCATION
        ],
        contradiction_count=sum(1 for o in successful if o.contradiction),
        anchoring_ratio_mean=sum(anchoring) / len(anchoring) if anchoring else 0.0,
        goal_grounding_pass_rate=_ratio(len(grounded_goals), len(extracted), empty=1.0),
        latency_p50_ms=nearest_rank(latencies, 0.50),
        latency_p95_ms=nearest_rank(latencies, 0.95),
        scenarios_total=len(outcomes),
        scenarios_successful=len(successful),
        scenarios_errored=len(outcomes) - len(successful),
        action_count=len(actions),
        goals_emitted=sum(1 for o in successful if o.goal_emitted),
        goals_extracted=len(extracted),
        grounded_count=len(grounded),
        repetition_count=repetitions,
        discouraged_count=len(discouraged),
        expected_count=len(expected),
        tasks_created=sum(task_counts) if task_counts else None,
    )


def available_fact_count(facts: SituationFacts) -> int:
    """Facts a frame holds, as the reference counts them for anchoring:
    health, hunger, position, time, each inventory item, the threat level
    when given (``none`` included), the biome, each nearby entity."""
    threat = 1 if facts.bot.threat_level else 0
    return 5 + len(facts.bot.inventory) + threat + len(facts.world.nearby_entities)


def nearest_rank(sorted_values: Sequence[float], p: float) -> float:
    """The nearest-rank ``p`` percentile of ascending ``sorted_values``.

    Index ``ceil(p*n)-1`` clamped to ``[0, n-1]``; 0.0 for no values.
    ``[100, 200, 300, 400, 1000]`` gives 300 for p=0.5 and 1000 for p=0.95.
    """
    if not sorted_values:
        return 0.0
    index = min(max(math.ceil(p * len(sorted_values)) - 1, 0), len(sorted_values) - 1)
    return float(sorted_values[index])


def normalize_output(text: str) -> str:
    """The form compared by ``repetition_rate``: lowercased, whitespace runs
    collapsed to one space (JavaScript's ``\\s``, as the reference harness
    collapses it), ends trimmed."""
    return collapse_js_whitespace(text.lower())


def evaluate_scenario(outcome: ScenarioOutcome) -> ScenarioVerdict:
    """Per-scenario pass: no error, no hallucination, not a compulsion.

    A scenario also fails on a PA-D2/PA-D3 breach of the pipeline itself
    (``eligible_without_grounding``, ``task_without_goal``).
    """
    reasons: list[str] = []
    if outcome.error is not None:
        reasons.append("error")
    else:
        if outcome.hallucination_category is not None:
            reasons.append(f"hallucination:{outcome.hallucination_category}")
        if outcome.affordance == ActionAffordance.DISCOURAGED and outcome.is_action:
            reasons.append("compulsion")
        if outcome.convert_eligible and not (
            outcome.is_action and outcome.grounding_passed is True
        ):
            reasons.append("eligible_without_grounding")
        if not outcome.is_action and (outcome.tasks_created or 0) > 0:
            reasons.append("task_without_goal")
    return ScenarioVerdict(
        scenario_id=outcome.scenario_id,
        passed=not reasons,
        fail_reasons=tuple(sorted(reasons)),
    )


def evaluate_verdict(
    metrics: EvalMetrics, outcomes: Sequence[ScenarioOutcome]
) -> EvalVerdict:
    """The run verdict; ``metrics`` must be ``compute_metrics(outcomes)``.

    PASS = every ``VerdictProperty`` holds. Whether or how often the agent
    acted never fails a run (EV-C7); ``inertia_count`` is not a property.
    ``failed_properties`` is sorted.
    """
    per_scenario = tuple(evaluate_scenario(o) for o in outcomes)
    reasons = {r for verdict in per_scenario for r in verdict.fail_reasons}
    failed: set[VerdictProperty] = set()
    if metrics.hallucination_count > 0:
        failed.add(VerdictProperty.NO_HALLUCINATION)
    if metrics.compulsion_count > 0:
        failed.add(VerdictProperty.NO_COMPULSION)
    if metrics.scenarios_errored > 0:
        failed.add(VerdictProperty.NO_SCENARIO_ERRORS)
    if "eligible_without_grounding" in reasons:
        failed.add(VerdictProperty.ELIGIBLE_ONLY_IF_GROUNDED)
    if "task_without_goal" in reasons:
        failed.add(VerdictProperty.NO_TASK_WITHOUT_GOAL)
    return EvalVerdict(
        passed=not failed,
        failed_properties=tuple(sorted(str(p) for p in failed)),
        per_scenario=per_scenario,
    )


def metrics_to_wire(metrics: EvalMetrics) -> dict[str, float | int]:
    """Flat ``{snake_case_name: number}`` map for a run summary's metrics.

    Keys are the contract's names (``action_rate``, ``latency_p95_ms``, ...).
    ``tasks_created`` is present only for end-to-end runs (no nulls, so every
    value is a number a gate can compare).
    """
    wire: dict[str, float | int] = {
        "action_rate": metrics.action_rate,
        "grounding_pass_rate": metrics.grounding_pass_rate,
        "repetition_rate": metrics.repetition_rate,
        "compulsion_proxy": metrics.compulsion_proxy,
        "compulsion_count": metrics.compulsion_count,
        "inertia_count": metrics.inertia_count,
        "hallucination_count": metrics.hallucination_count,
        "hallucination_missing_entity": metrics.hallucination_missing_entity,
        "hallucination_missing_item": metrics.hallucination_missing_item,
        "hallucination_missing_location": metrics.hallucination_missing_location,
        "contradiction_count": metrics.contradiction_count,
        "anchoring_ratio_mean": metrics.anchoring_ratio_mean,
        "goal_grounding_pass_rate": metrics.goal_grounding_pass_rate,
        "latency_p50_ms": metrics.latency_p50_ms,
        "latency_p95_ms": metrics.latency_p95_ms,
        "scenarios_total": metrics.scenarios_total,
        "scenarios_successful": metrics.scenarios_successful,
        "scenarios_errored": metrics.scenarios_errored,
        "action_count": metrics.action_count,
        "goals_emitted": metrics.goals_emitted,
        "goals_extracted": metrics.goals_extracted,
        "grounded_count": metrics.grounded_count,
        "repetition_count": metrics.repetition_count,
        "discouraged_count": metrics.discouraged_count,
        "expected_count": metrics.expected_count,
    }
    if metrics.tasks_created is not None:
        wire["tasks_created"] = metrics.tasks_created
    return wire


def format_metric(value: float) -> str:
    """A metric as printed in ``[Eval] summary ...`` (EV-C5).

    Rounded to 4 decimals, trailing zeros and a trailing point trimmed, never
    ``-0``: 0.5 -> ``0.5``, 1.0 -> ``1``, 0.0 -> ``0``, 2/3 -> ``0.6667``,
    1000.0 -> ``1000``, 0.00004 -> ``0``.
    """
    text = f"{value:.{METRIC_DECIMALS}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _ratio(numerator: int, denominator: int, *, empty: float) -> float:
    return numerator / denominator if denominator else empty


def _repetition_count(texts: Sequence[str]) -> int:
    """Outputs found in the set of the last ``REPETITION_WINDOW`` distinct
    outputs before them; the set drops its oldest entry when it overflows."""
    recent: dict[str, None] = {}  # insertion-ordered set
    count = 0
    for text in map(normalize_output, texts):
        if text in recent:
            count += 1
        else:
            recent[text] = None
            if len(recent) > REPETITION_WINDOW:
                del recent[next(iter(recent))]
    return count
