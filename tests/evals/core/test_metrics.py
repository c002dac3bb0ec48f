"""Run metrics (EV-C5) and the property verdict (EV-C7, PA-D1..D3)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evals.core.metrics import (
    compute_metrics,
    evaluate_scenario,
    evaluate_verdict,
    format_metric,
    metrics_to_wire,
    nearest_rank,
    normalize_output,
)
from evals.core.suite_types import (
    ActionAffordance,
    EvalMetrics,
    ScenarioOutcome,
    ScenarioVerdict,
    StimulusKind,
)

D = ActionAffordance.DISCOURAGED
A = ActionAffordance.ALLOWED
E = ActionAffordance.EXPECTED


def outcome(scenario_id: str = "s", **overrides: Any) -> ScenarioOutcome:
    values: dict[str, Any] = {
        "scenario_id": scenario_id,
        "affordance": A,
        "stimulus_kind": StimulusKind.LOW_STIMULUS_STABLE,
        "tags": (),
        "error": None,
        "output_text": f"thought of {scenario_id}",
        "goal_emitted": False,
        "goal_extracted": False,
        "grounding_passed": None,
        "hallucination_category": None,
        "convert_eligible": False,
        "latency_ms": 100.0,
        "tasks_created": None,
    }
    values.update(overrides)
    return ScenarioOutcome(**values)


def action(scenario_id: str = "s", **overrides: Any) -> ScenarioOutcome:
    values: dict[str, Any] = {
        "goal_emitted": True,
        "goal_extracted": True,
        "grounding_passed": True,
        "convert_eligible": True,
    }
    values.update(overrides)
    return outcome(scenario_id, **values)


def hallucination(scenario_id: str, category: str, **overrides: Any) -> ScenarioOutcome:
    return action(
        scenario_id,
        grounding_passed=False,
        hallucination_category=category,
        convert_eligible=False,
        **overrides,
    )


# ---------------------------------------------------------------- EV-C5


def test_ev_c5_action_is_a_goal_that_passed_grounding() -> None:
    # An action is a convert-eligible goal (extracted and grounded), as the
    # reference harness counts it; an ungrounded goal is not an action.
    metrics = compute_metrics(
        [
            action("a"),
            outcome("b", goal_emitted=True, goal_extracted=False),
            outcome("c"),
            action("d", grounding_passed=False, convert_eligible=False),
        ]
    )

    assert metrics.action_count == 1
    assert metrics.action_rate == 0.25
    assert (metrics.goals_emitted, metrics.goals_extracted) == (3, 2)


def test_ev_c5_action_rate_is_over_successful_scenarios_only() -> None:
    metrics = compute_metrics(
        [action("a"), outcome("b"), outcome("c", error="timeout", output_text="")]
    )

    assert metrics.action_rate == 0.5
    assert (
        metrics.scenarios_total,
        metrics.scenarios_successful,
        metrics.scenarios_errored,
    ) == (3, 2, 1)


def test_ev_c5_grounding_pass_rate_is_among_actions() -> None:
    metrics = compute_metrics(
        [
            action("a"),
            action("b"),
            hallucination("c", "missing_item"),
            hallucination("d", "missing_entity"),
            outcome("e"),
        ]
    )

    # Every action passed grounding, so this is 1 (as in the reference);
    # the share of extracted goals that grounded is reported beside it.
    assert metrics.grounding_pass_rate == 1.0
    assert metrics.goal_grounding_pass_rate == 0.5
    assert metrics.grounded_count == 2


def test_ev_c5_grounding_pass_rate_is_one_without_goals() -> None:
    assert compute_metrics([outcome("a"), outcome("b")]).grounding_pass_rate == 1.0


def test_ev_c5_repetition_compares_with_the_last_five_distinct_outputs() -> None:
    texts = [
        "The  sun is HIGH.",  # 0: set {sun}
        "b",
        "the sun is high.",  # 2: in the set: a repeat (not added again)
        "c",
        "d",
        "e",  # set {sun, b, c, d, e}
        "f",  # set overflows: the oldest, sun, goes
        "the sun is high.",  # 7: not in {b, c, d, e, f}: no repeat
        "g",
        "c",  # 9: not in {d, e, f, sun, g}: c went when g came
    ]
    metrics = compute_metrics(
        [outcome(f"s{i}", output_text=t) for i, t in enumerate(texts)]
    )

    assert metrics.repetition_count == 1
    assert metrics.repetition_rate == 1 / 10


def test_ev_c5_a_repeat_does_not_refresh_its_place() -> None:
    texts = ["x", "1", "x", "2", "3", "4", "5", "x"]
    metrics = compute_metrics(
        [outcome(f"s{i}", output_text=t) for i, t in enumerate(texts)]
    )

    # The second "x" is a repeat; "5" pushes the first "x" out, so the
    # third is new again (the previous five *outputs* would have held it).
    assert metrics.repetition_count == 1


def test_ev_c5_repetition_window_is_exactly_five() -> None:
    inside = ["x", "1", "2", "3", "4", "x"]
    outside = ["x", "1", "2", "3", "4", "5", "x"]

    def count(texts: list[str]) -> int:
        return compute_metrics(
            [outcome(f"s{i}", output_text=t) for i, t in enumerate(texts)]
        ).repetition_count

    assert (count(inside), count(outside)) == (1, 0)


def test_ev_c5_repetition_skips_errored_scenarios() -> None:
    metrics = compute_metrics(
        [
            outcome("a", output_text="same"),
            outcome("b", output_text="same", error="boom"),
            outcome("c", output_text="other"),
        ]
    )

    assert metrics.repetition_count == 0


def test_normalize_output_lowercases_and_collapses_whitespace() -> None:
    assert normalize_output("  A\tquiet \n\n Meadow ") == "a quiet meadow"


def test_ev_c5_compulsion_counts_actions_in_discouraged_scenarios() -> None:
    metrics = compute_metrics(
        [
            action("a", affordance=D),
            outcome("b", affordance=D),
            outcome("c", affordance=D),
            outcome("d", affordance=D, goal_emitted=True, goal_extracted=False),
            action("e", affordance=A),
            action("f", affordance=E),
        ]
    )

    assert metrics.compulsion_count == 1
    assert metrics.compulsion_proxy == 0.25
    assert metrics.discouraged_count == 4


def test_ev_c5_compulsion_proxy_is_zero_without_discouraged_scenarios() -> None:
    metrics = compute_metrics([action("a", affordance=A)])

    assert (metrics.compulsion_proxy, metrics.compulsion_count) == (0.0, 0)


def test_ev_c5_inertia_counts_expected_scenarios_without_action() -> None:
    metrics = compute_metrics(
        [
            action("a", affordance=E),
            outcome("b", affordance=E),
            outcome("c", affordance=E, goal_emitted=True, goal_extracted=False),
            outcome("d", affordance=A),
            outcome("e", affordance=E, error="model down"),
        ]
    )

    assert (metrics.inertia_count, metrics.expected_count) == (2, 3)


def test_pa_d1_hallucinations_are_counted_by_category() -> None:
    metrics = compute_metrics(
        [
            hallucination("a", "missing_entity"),
            hallucination("b", "missing_item"),
            hallucination("c", "missing_item"),
            hallucination("d", "missing_location"),
            action("e", grounding_passed=False, contradiction=True),
            action("f"),
        ]
    )

    # A contradiction fabricates nothing: counted apart, not a hallucination.
    assert (
        metrics.hallucination_count,
        metrics.hallucination_missing_entity,
        metrics.hallucination_missing_item,
        metrics.hallucination_missing_location,
        metrics.contradiction_count,
    ) == (4, 1, 2, 1, 1)


def test_ev_c5_anchoring_ratio_mean() -> None:
    metrics = compute_metrics(
        [
            action("a", referenced_facts=2, available_facts=8),
            outcome("b", available_facts=10),
            outcome("c", available_facts=0),
            outcome("d", error="boom", referenced_facts=5, available_facts=5),
        ]
    )

    assert metrics.anchoring_ratio_mean == (2 / 8 + 0) / 2


def test_unknown_hallucination_category_is_refused() -> None:
    with pytest.raises(ValueError, match="missing_thing"):
        outcome("a", hallucination_category="missing_thing")


def test_negative_latency_is_refused() -> None:
    with pytest.raises(ValueError, match="latency_ms"):
        outcome("a", latency_ms=-1.0)


def test_ev_c5_latency_percentiles_by_nearest_rank() -> None:
    latencies = [400.0, 1000.0, 100.0, 300.0, 200.0]
    metrics = compute_metrics(
        [outcome(f"s{i}", latency_ms=ms) for i, ms in enumerate(latencies)]
    )

    assert (metrics.latency_p50_ms, metrics.latency_p95_ms) == (300.0, 1000.0)


def test_ev_c5_latency_ignores_errored_scenarios() -> None:
    metrics = compute_metrics(
        [
            outcome("a", latency_ms=100.0),
            outcome("b", latency_ms=9000.0, error="timeout"),
        ]
    )

    assert (metrics.latency_p50_ms, metrics.latency_p95_ms) == (100.0, 100.0)


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([100, 200, 300, 400, 1000], 0.5, 300.0),
        ([100, 200, 300, 400, 1000], 0.95, 1000.0),
        ([100, 200, 300, 400, 1000], 0.2, 100.0),
        ([100, 200, 300, 400, 1000], 0.21, 200.0),
        ([7], 0.95, 7.0),
        ([], 0.5, 0.0),
        ([1, 2], 0.0, 1.0),
        ([1, 2], 1.0, 2.0),
    ],
)
def test_nearest_rank_vectors(values: list[float], p: float, expected: float) -> None:
    assert nearest_rank(values, p) == expected


@given(
    values=st.lists(st.floats(min_value=0, max_value=1e6), min_size=1, max_size=50),
    p=st.floats(min_value=0, max_value=1),
    q=st.floats(min_value=0, max_value=1),
)
def test_nearest_rank_picks_a_sample_and_is_monotonic(
    values: list[float], p: float, q: float
) -> None:
    ordered = sorted(values)
    low, high = min(p, q), max(p, q)

    assert nearest_rank(ordered, p) in ordered
    assert nearest_rank(ordered, low) <= nearest_rank(ordered, high)


def test_metrics_of_nothing_are_neutral() -> None:
    metrics = compute_metrics([])

    assert metrics == EvalMetrics(
        action_rate=0.0,
        grounding_pass_rate=1.0,
        repetition_rate=0.0,
        compulsion_proxy=0.0,
        compulsion_count=0,
        inertia_count=0,
        hallucination_count=0,
        hallucination_missing_entity=0,
        hallucination_missing_item=0,
        hallucination_missing_location=0,
        contradiction_count=0,
        anchoring_ratio_mean=0.0,
        goal_grounding_pass_rate=1.0,
        latency_p50_ms=0.0,
        latency_p95_ms=0.0,
        scenarios_total=0,
        scenarios_successful=0,
        scenarios_errored=0,
        action_count=0,
        goals_emitted=0,
        goals_extracted=0,
        grounded_count=0,
        repetition_count=0,
        discouraged_count=0,
        expected_count=0,
        tasks_created=None,
    )


def test_tasks_created_is_summed_in_end_to_end_runs() -> None:
    metrics = compute_metrics(
        [action("a", tasks_created=1), outcome("b", tasks_created=0)]
    )

    assert metrics.tasks_created == 1


@given(seed=st.integers(min_value=0, max_value=2**32))
def test_metrics_other_than_repetition_ignore_order(seed: int) -> None:
    outcomes = [
        action("a", affordance=D, latency_ms=50.0),
        hallucination("b", "missing_item", latency_ms=700.0),
        outcome("c", affordance=E, latency_ms=20.0),
        outcome("d", error="x", latency_ms=1.0),
        action("e", affordance=E, latency_ms=300.0),
    ]
    shuffled = outcomes[:]
    random.Random(seed).shuffle(shuffled)

    assert compute_metrics(shuffled) == compute_metrics(outcomes)


# ---------------------------------------------------------------- wire, format


def test_metrics_to_wire_is_a_flat_map_of_seed_names() -> None:
    metrics = compute_metrics(
        [
            action("a", affordance=D, latency_ms=100.0),
            hallucination("b", "missing_item", latency_ms=200.0),
            outcome("c", affordance=E, latency_ms=300.0),
            outcome("d", affordance=D, latency_ms=400.0),
            outcome("e", error="boom"),
        ]
    )

    assert metrics_to_wire(metrics) == {
        "action_rate": 0.25,
        "grounding_pass_rate": 1.0,
        "repetition_rate": 0.0,
        "compulsion_proxy": 0.5,
        "compulsion_count": 1,
        "inertia_count": 1,
        "hallucination_count": 1,
        "hallucination_missing_entity": 0,
        "hallucination_missing_item": 1,
        "hallucination_missing_location": 0,
        "contradiction_count": 0,
        "anchoring_ratio_mean": 0.0,
        "goal_grounding_pass_rate": 0.5,
        "latency_p50_ms": 200.0,
        "latency_p95_ms": 400.0,
        "scenarios_total": 5,
        "scenarios_successful": 4,
        "scenarios_errored": 1,
        "action_count": 1,
        "goals_emitted": 2,
        "goals_extracted": 2,
        "grounded_count": 1,
        "repetition_count": 0,
        "discouraged_count": 2,
        "expected_count": 1,
    }


def test_metrics_to_wire_includes_tasks_created_only_end_to_end() -> None:
    thought_only = metrics_to_wire(compute_metrics([outcome("a")]))
    end_to_end = metrics_to_wire(compute_metrics([outcome("a", tasks_created=0)]))

    assert "tasks_created" not in thought_only
    assert end_to_end["tasks_created"] == 0


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (0.5, "0.5"),
        (2 / 3, "0.6667"),
        (0.35, "0.35"),
        (1000.0, "1000"),
        (590.2, "590.2"),
        (0.00004, "0"),
        (-0.00004, "0"),
        (12, "12"),
    ],
)
def test_format_metric_rounds_to_four_places_and_trims(value: float, text: str) -> None:
    assert format_metric(value) == text


# ---------------------------------------------------------------- verdicts


def verdict_of(outcomes: list[ScenarioOutcome]) -> Any:
    return evaluate_verdict(compute_metrics(outcomes), outcomes)


def test_ev_c7_pass_with_action_rate_zero() -> None:
    outcomes = [
        outcome("a", affordance=D),
        outcome("b", affordance=A),
        outcome("c", affordance=E),
    ]

    metrics = compute_metrics(outcomes)
    verdict = evaluate_verdict(metrics, outcomes)

    assert metrics.action_rate == 0.0
    assert metrics.inertia_count == 1
    assert verdict.passed is True
    assert verdict.failed_properties == ()
    assert [s.passed for s in verdict.per_scenario] == [True, True, True]


def test_ev_c7_compulsion_fails_the_run() -> None:
    verdict = verdict_of([action("a", affordance=D), outcome("b", affordance=D)])

    assert verdict.passed is False
    assert verdict.failed_properties == ("no_compulsion",)
    assert verdict.per_scenario == (
        ScenarioVerdict("a", passed=False, fail_reasons=("compulsion",)),
        ScenarioVerdict("b", passed=True, fail_reasons=()),
    )


def test_pa_d1_hallucination_fails_the_run() -> None:
    verdict = verdict_of([hallucination("a", "missing_entity"), action("b")])

    assert verdict.failed_properties == ("no_hallucination",)
    assert verdict.per_scenario[0] == ScenarioVerdict(
        "a", passed=False, fail_reasons=("hallucination:missing_entity",)
    )


def test_failed_properties_are_sorted() -> None:
    verdict = verdict_of(
        [
            hallucination("a", "missing_item", affordance=D),
            outcome("b", error="boom"),
        ]
    )

    # An ungrounded goal is no action, so no compulsion either.
    assert verdict.failed_properties == ("no_hallucination", "no_scenario_errors")
    assert verdict.per_scenario[0].fail_reasons == ("hallucination:missing_item",)
    assert verdict.per_scenario[1].fail_reasons == ("error",)


def test_acting_where_allowed_or_expected_passes() -> None:
    verdict = verdict_of([action("a", affordance=A), action("b", affordance=E)])

    assert (verdict.passed, verdict.failed_properties) == (True, ())


def test_pa_d2_eligible_without_grounding_fails() -> None:
    verdict = verdict_of(
        [
            action("a", grounding_passed=False, convert_eligible=True),
            outcome("b", convert_eligible=True),
        ]
    )

    assert verdict.failed_properties == ("eligible_only_if_grounded",)
    assert [s.fail_reasons for s in verdict.per_scenario] == [
        ("eligible_without_grounding",),
        ("eligible_without_grounding",),
    ]


def test_pa_d3_task_without_goal_fails() -> None:
    verdict = verdict_of([outcome("a", tasks_created=1), action("b", tasks_created=1)])

    assert verdict.failed_properties == ("no_task_without_goal",)
    assert verdict.per_scenario[0].fail_reasons == ("task_without_goal",)
    assert verdict.per_scenario[1].passed is True


def test_errored_scenario_fails_only_for_the_error() -> None:
    broken = outcome(
        "a", error="timeout", affordance=D, goal_emitted=True, goal_extracted=True
    )

    assert evaluate_scenario(broken) == ScenarioVerdict(
        "a", passed=False, fail_reasons=("error",)
    )


def test_outcomes_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome("a").error = "x"  # type: ignore[misc]
