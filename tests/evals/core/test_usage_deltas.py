"""Cost and latency of two runs: totals, paired means with intervals (checked
against scipy on generated data), p50/p95 and the bootstrap of the p95's
change (checked against a plain loop over the same draws)."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from scipy import stats as sps

from evals.core.usage_deltas import (
    BOOTSTRAP_MIN_RESAMPLES,
    BOOTSTRAP_MIN_SCENARIOS,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    BOOTSTRAP_WORK,
    CaseFigures,
    RunFigures,
    relative_change,
    usage_delta,
    usage_delta_to_json,
)


def run_of(cases: dict[str, tuple[float | None, float | None]], **totals) -> RunFigures:
    figures = {
        case_id: CaseFigures(cost_usd=cost, latency_ms=latency, input_tokens=10)
        for case_id, (cost, latency) in cases.items()
    }
    known = [c for c, _ in cases.values() if c is not None]
    return RunFigures(
        calls=totals.get("calls", len(cases)),
        unpriced_calls=totals.get("unpriced", 0),
        cost_usd=totals.get("cost", sum(known)),
        input_tokens=10 * len(cases),
        output_tokens=totals.get("output"),
        cases=figures,
    )


def generated(seed: int, scenarios: int, repeats: int, slower: float):
    """Two runs of ``scenarios`` x ``repeats`` cases; the candidate's latency
    is ``slower`` times the base's plus noise, its cost 10% higher."""
    rng = np.random.default_rng(seed)
    difficulty = rng.lognormal(6, 0.6, scenarios)
    base: dict[str, tuple[float, float]] = {}
    candidate: dict[str, tuple[float, float]] = {}
    for s in range(scenarios):
        for e in range(repeats):
            case = f"scn-{s:03d}#{e}" if repeats > 1 else f"scn-{s:03d}"
            latency = float(difficulty[s] * rng.lognormal(0, 0.2))
            base[case] = (latency / 1e5, latency)
            later = float(difficulty[s] * slower * rng.lognormal(0, 0.2))
            candidate[case] = (1.1 * later / 1e5, later)
    return run_of(base), run_of(candidate)


def scenario_means(run: RunFigures, attribute: str) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for case_id, figures in run.cases.items():
        scenario = case_id.rsplit("#", 1)[0] if "#" in case_id else case_id
        groups[scenario].append(getattr(figures, attribute))
    return {s: sum(v) / len(v) for s, v in groups.items()}


@pytest.mark.parametrize(("seed", "scenarios", "repeats"), [(1, 12, 1), (2, 40, 3)])
def test_the_paired_mean_interval_is_scipys_t_interval_of_scenario_means(
    seed: int, scenarios: int, repeats: int
) -> None:
    base, candidate = generated(seed, scenarios, repeats, slower=1.3)
    delta = usage_delta(base, candidate)
    for attribute, mean in (
        ("latency_ms", delta.latency_per_case),
        ("cost_usd", delta.cost_per_case),
    ):
        a, b = scenario_means(base, attribute), scenario_means(candidate, attribute)
        diffs = np.array([b[s] - a[s] for s in sorted(a)])
        low, high = sps.t.interval(
            0.95, len(diffs) - 1, loc=diffs.mean(), scale=sps.sem(diffs)
        )
        c = mean.comparison
        assert c is not None
        assert (c.n, c.k) == (scenarios, repeats)
        assert c.delta == pytest.approx(diffs.mean(), rel=1e-9)
        assert c.interval.low == pytest.approx(low, rel=1e-9)
        assert c.interval.high == pytest.approx(high, rel=1e-9)
        assert c.verdict.value == "regression"


def test_the_p95_change_interval_is_a_paired_scenario_bootstrap() -> None:
    base, candidate = generated(3, 60, 2, slower=2.0)
    change = usage_delta(base, candidate).latency_p95
    # Plain loop over the same draws: resample scenarios, keep their epochs.
    by_scenario: dict[str, tuple[list[float], list[float]]] = defaultdict(
        lambda: ([], [])
    )
    for case_id in sorted(base.cases):
        scenario = case_id.rsplit("#", 1)[0]
        by_scenario[scenario][0].append(base.cases[case_id].latency_ms)
        by_scenario[scenario][1].append(candidate.cases[case_id].latency_ms)
    names = sorted(by_scenario)
    draws = np.random.default_rng(BOOTSTRAP_SEED).integers(
        0, len(names), size=(BOOTSTRAP_RESAMPLES, len(names))
    )
    changes = []
    for row in draws:
        a = [v for i in row for v in by_scenario[names[i]][0]]
        b = [v for i in row for v in by_scenario[names[i]][1]]
        changes.append(np.percentile(b, 95) - np.percentile(a, 95))
    low, high = np.percentile(changes, [2.5, 97.5])
    assert change.low == pytest.approx(low, rel=1e-9)
    assert change.high == pytest.approx(high, rel=1e-9)
    all_a = [f.latency_ms for f in base.cases.values()]
    all_b = [f.latency_ms for f in candidate.cases.values()]
    assert change.value.base == pytest.approx(np.percentile(all_a, 95))
    assert change.value.candidate == pytest.approx(np.percentile(all_b, 95))
    assert change.low > 0  # twice as slow: the interval shows it


def test_the_p95_bootstrap_covers_the_truth_on_no_change() -> None:
    """Same distribution on both sides: the interval holds 0 most times."""
    held = 0
    for seed in range(40):
        base, candidate = generated(100 + seed, 30, 1, slower=1.0)
        p95 = usage_delta(base, candidate).latency_p95
        held += p95.low <= 0 <= p95.high
    assert held >= 34


def test_too_few_shared_scenarios_give_no_p95_interval_and_say_why() -> None:
    base, candidate = generated(4, BOOTSTRAP_MIN_SCENARIOS - 1, 1, slower=1.0)
    p95 = usage_delta(base, candidate).latency_p95
    assert (p95.low, p95.high) == (None, None)
    assert p95.note == (
        f"{BOOTSTRAP_MIN_SCENARIOS - 1} shared scenarios: no interval for the p95 "
        f"(at least {BOOTSTRAP_MIN_SCENARIOS} are needed)"
    )


def test_one_shared_scenario_gives_a_mean_without_interval() -> None:
    base = run_of({"a": (0.1, 100.0), "b": (0.2, 200.0)})
    candidate = run_of({"a": (0.3, 150.0), "c": (0.1, 100.0)})
    mean = usage_delta(base, candidate).latency_per_case
    assert mean.comparison is not None
    assert mean.comparison.n == 1
    assert mean.comparison.only_base == ("b",)
    assert mean.comparison.only_candidate == ("c",)
    assert not mean.has_interval
    assert mean.note == "one shared scenario: no interval (at least 2 are needed)"


def test_unpriced_calls_make_the_cost_unknown_and_are_counted() -> None:
    base = run_of({"a": (0.1, 100.0), "b": (0.2, 200.0)})
    candidate = run_of({"a": (None, 100.0), "b": (0.2, 200.0)}, unpriced=3, cost=None)
    delta = usage_delta(base, candidate)
    assert delta.cost_note == "cost unknown: candidate: 3 calls unpriced"
    assert not delta.cost_known
    assert delta.cost.base == pytest.approx(0.3)
    assert delta.cost.candidate is None
    assert delta.cost.change is None
    assert delta.cost_per_case.comparison is None
    # Latency is still compared.
    assert delta.latency_per_case.comparison is not None


def test_runs_without_model_calls_say_so() -> None:
    delta = usage_delta(RunFigures(), RunFigures())
    assert not delta.has_calls
    assert delta.cost_note == "no model calls recorded"
    document = usage_delta_to_json(delta)
    assert document["costUsd"] == {
        "base": None,
        "candidate": None,
        "change": None,
        "relativeChange": None,
        "note": "no model calls recorded",
    }
    assert document["latencyP95Ms"]["interval"] is None
    assert document["inputTokens"]["base"] is None


def test_a_run_without_calls_beside_one_with_calls_is_unknown_cost() -> None:
    base = RunFigures()
    candidate = run_of({"a": (0.1, 100.0)})
    assert usage_delta(base, candidate).cost_note == (
        "cost unknown: base: no model calls recorded"
    )


def test_totals_and_relative_changes() -> None:
    base = run_of({"a": (0.1, 100.0), "b": (0.3, 300.0)}, output=50)
    candidate = run_of({"a": (0.2, 100.0), "b": (0.3, 500.0)}, output=75)
    delta = usage_delta(base, candidate)
    assert delta.cost.base == pytest.approx(0.4)
    assert delta.cost.relative == pytest.approx(0.25)
    assert delta.output_tokens.relative == pytest.approx(0.5)
    document = usage_delta_to_json(delta)
    assert document["latencyP50Ms"]["base"] == pytest.approx(200.0)
    assert document["latencyP50Ms"]["candidate"] == pytest.approx(300.0)
    assert document["costPerCaseUsd"]["scenarios"] == 2
    assert document["costPerCaseUsd"]["interval"] is not None
    assert relative_change(0.0, 1.0) is None
    assert relative_change(None, 1.0) is None
    assert math.isclose(relative_change(2.0, 1.0) or 0, -0.5)


def test_the_p95_bootstrap_is_bounded_for_a_page() -> None:
    """Past BOOTSTRAP_WORK / BOOTSTRAP_MIN_RESAMPLES cases no interval, said
    so; below it fewer resamples, the same rule."""
    too_many = BOOTSTRAP_WORK // BOOTSTRAP_MIN_RESAMPLES + 1
    base, candidate = generated(5, too_many, 1, slower=1.0)
    p95 = usage_delta(base, candidate).latency_p95
    assert (p95.low, p95.high) == (None, None)
    assert p95.note == (
        f"{too_many:,} cases: too many to resample on a page, no interval for the p95"
    )
    assert p95.value.base is not None


def test_the_p50_has_values_but_no_interval() -> None:
    base, candidate = generated(6, 20, 1, slower=1.2)
    p50 = usage_delta(base, candidate).latency_p50
    assert p50.value.change is not None
    assert (p50.low, p50.note) == (None, "")
