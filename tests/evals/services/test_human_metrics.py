"""People's scores stored as a run's ``human.`` metrics
(evals.services.human_metrics, through evals.facade)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals.facade import MAX_REPEATS, HumanMetricsInvalid, run_human_metrics_set
from evals.models import Run
from evals.services.harness.finish import stored_run_uncertainty
from tests.reviews.subjects_support import scenario_run, suites_private

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(settings: Any, tmp_path: Path) -> Run:
    return scenario_run(suites_private(settings, tmp_path))


def cases_of(run: Run) -> list[str]:
    return sorted(run.case_results.values_list("case_id", flat=True))


def test_values_become_metrics_summary_metrics_and_intervals(run: Run) -> None:
    cases = cases_of(run)
    before = dict(run.metrics)
    values = {case: float(i % 2) for i, case in enumerate(cases)}
    stored = run_human_metrics_set(run.run_id, {"human.correct": values})

    run.refresh_from_db()
    mean = sum(values.values()) / len(values)
    assert stored == {"human.correct": pytest.approx(mean)}
    assert run.metrics == {**before, "human.correct": pytest.approx(mean)}
    assert run.summary["metrics"]["human.correct"] == pytest.approx(mean)
    figure = run.uncertainty["metrics"]["human.correct"]
    assert figure["estimate"] == pytest.approx(mean)
    assert figure["n"] == len(cases)
    assert figure["ciLow"] < mean < figure["ciHigh"]
    # The run's own figures are still there beside it.
    assert "passRate" in run.uncertainty["metrics"]
    assert stored_run_uncertainty(run)["metrics"]["human.correct"] == figure


def test_a_second_call_replaces_every_human_metric(run: Run) -> None:
    case = cases_of(run)[0]
    run_human_metrics_set(run.run_id, {"human.a": {case: 1.0}, "human.b": {case: 2.0}})
    run_human_metrics_set(run.run_id, {"human.b": {case: 3.0}})

    run.refresh_from_db()
    human = {k: v for k, v in run.metrics.items() if k.startswith("human.")}
    assert human == {"human.b": 3.0}
    assert "human.a" not in run.summary["metrics"]
    assert "human.a" not in run.uncertainty["metrics"]


def test_no_values_remove_the_human_metrics(run: Run) -> None:
    case = cases_of(run)[0]
    run_human_metrics_set(run.run_id, {"human.a": {case: 1.0}})
    assert run_human_metrics_set(run.run_id, {}) == {}

    run.refresh_from_db()
    assert not [k for k in run.metrics if k.startswith("human.")]
    assert not [k for k in run.uncertainty["metrics"] if k.startswith("human.")]


@pytest.mark.parametrize(
    "values",
    [
        {"quality": {"s#1": 1.0}},
        {"human.": {"s#1": 1.0}},
        {"human.q": {"s#1": float("nan")}},
        {"human.q": {"s#1": float("inf")}},
    ],
)
def test_bad_names_and_values_are_refused_and_nothing_is_written(
    run: Run, values: Any
) -> None:
    before = (dict(run.metrics), dict(run.summary), dict(run.uncertainty))
    with pytest.raises(HumanMetricsInvalid):
        run_human_metrics_set(run.run_id, values)
    run.refresh_from_db()
    assert (run.metrics, run.summary, run.uncertainty) == before


def test_an_unknown_run_is_none() -> None:
    assert run_human_metrics_set("no-such-run", {"human.q": {"a": 1.0}}) is None


def test_values_read_by_a_function_are_read_with_the_run_locked(run: Run) -> None:
    case = cases_of(run)[0]
    calls: list[str] = []

    def read() -> dict[str, dict[str, float]]:
        calls.append("read")
        return {"human.q": {case: 0.5}}

    assert run_human_metrics_set(run.run_id, read) == {"human.q": 0.5}
    assert calls == ["read"]
    # no run, nothing to lock: the values are never read
    assert run_human_metrics_set("no-such-run", read) is None
    assert calls == ["read"]


def test_more_epochs_of_a_scenario_than_a_run_may_have_are_refused(run: Run) -> None:
    too_many = {f"s#{i}": 1.0 for i in range(MAX_REPEATS + 1)}
    with pytest.raises(HumanMetricsInvalid, match="repeats|epochs"):
        run_human_metrics_set(run.run_id, {"human.q": too_many})
