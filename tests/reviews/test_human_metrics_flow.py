"""Human scores are first-class run metrics: scored in the reviews app, a
run's ``human.<name>`` shows on the compare page, on the trends of its
benchmark, is judged by the CI gate (``benchmark_ci_gate``) and leaves
with the run in the eval-store export, with no change in those places."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from evals.core.metric_registry import MetricDirection, direction
from evals.models import Run
from evals.selectors.trends import benchmark_trend
from evals.services.compare import comparison_for_runs
from reviews.models import ScoreConfig
from reviews.services.human_metrics import run_human_metrics_refresh
from tests.reviews.reviews_support import scenario_score
from tests.reviews.subjects_support import scenario_run, suites_private

pytestmark = pytest.mark.django_db
METRIC = "human.helpful"


def score_run(run: Run, config: ScoreConfig, user: Any, yes: int) -> None:
    """``user`` says yes to the first ``yes`` cases of ``run``, no to the rest."""
    cases = sorted(run.case_results.values_list("case_id", flat=True))
    for i, case_id in enumerate(cases):
        scenario_score(
            config, run.run_id, case_id, user, value_number=1.0 if i < yes else 0.0
        )
    run_human_metrics_refresh(run.run_id)


@pytest.fixture
def runs(settings: Any, tmp_path: Path) -> tuple[Run, Run]:
    """Two runs of the smoke suite: people liked every answer of the first
    and two of five of the second."""
    suites = suites_private(settings, tmp_path)
    base, candidate = scenario_run(suites), scenario_run(suites)
    reviewer = get_user_model().objects.create(username="ann")
    config = ScoreConfig.objects.create(name="helpful", kind="boolean")
    score_run(base, config, reviewer, yes=5)
    score_run(candidate, config, reviewer, yes=2)
    base.refresh_from_db()
    candidate.refresh_from_db()
    return base, candidate


def test_human_metrics_are_higher_is_better_and_label_shares_neutral() -> None:
    assert direction(METRIC) == MetricDirection.HIGHER_IS_BETTER
    assert direction("human.tone.rude") == MetricDirection.NEUTRAL
    overrides = {METRIC: MetricDirection.LOWER_IS_BETTER}
    assert direction(METRIC, overrides=overrides) == MetricDirection.LOWER_IS_BETTER


def test_compare_shows_the_human_metric_as_a_regression(
    runs: tuple[Run, Run], staff_client: Client
) -> None:
    base, candidate = runs
    assert base.metrics[METRIC] == 1.0
    assert candidate.metrics[METRIC] == pytest.approx(0.4)

    comparison = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )
    [delta] = comparison.verdict.deltas
    human = next(d for d in delta.metric_deltas if d.name == METRIC)
    assert (human.base, human.candidate) == (1.0, pytest.approx(0.4))
    assert human.outcome == "regression"
    assert delta.regressions == ("human.helpful 1 -> 0.4",)
    assert not comparison.verdict.passed

    page = staff_client.get(
        f"/evals/compare?base={base.run_id}&candidate={candidate.run_id}"
    ).content.decode()
    row = re.search(
        rf"<tr class=\"(\w+)\"><th scope=\"row\"><code>{METRIC}</code>", page
    )
    assert row is not None and row.group(1) == "bad"


def test_trends_offer_and_plot_the_human_metric(
    runs: tuple[Run, Run], staff_client: Client
) -> None:
    base, candidate = runs
    trend = benchmark_trend(benchmark=base.benchmark, metric=METRIC)
    assert METRIC in trend.metric_names
    assert trend.direction == MetricDirection.HIGHER_IS_BETTER
    assert [p.value for p in trend.points] == [1.0, pytest.approx(0.4)]

    benchmark_id = base.benchmark.benchmark_id
    response = staff_client.get(
        f"/evals/trends?benchmark={benchmark_id}&metric={METRIC}"
    )
    assert response.status_code == 200
    assert METRIC in response.content.decode()


def exported_run(root: Path, run_id: str) -> Path:
    [found] = list(root.rglob(f"{run_id}.json"))
    return found


def test_export_carries_the_human_metrics_and_the_gate_judges_them(
    runs: tuple[Run, Run], tmp_path: Path
) -> None:
    base, candidate = runs
    everything = tmp_path / "export"
    call_command("eval_store_export", str(everything), stdout=io.StringIO())
    for run, value in ((base, 1.0), (candidate, 0.4)):
        document = json.loads(exported_run(everything, run.run_id).read_text())
        assert document["metrics"][METRIC] == pytest.approx(value)

    # one store per side, each holding its own run
    stores = {}
    for side, keep, drop in (("base", base, candidate), ("cand", candidate, base)):
        stores[side] = tmp_path / side
        shutil.copytree(everything, stores[side])
        exported_run(stores[side], drop.run_id).unlink()
        assert exported_run(stores[side], keep.run_id)

    def gate(base_root: Path, candidate_root: Path) -> tuple[int, str]:
        out = io.StringIO()
        args = ["--base", str(base_root), "--candidate", str(candidate_root)]
        try:
            call_command("benchmark_ci_gate", *args, stdout=out, stderr=io.StringIO())
        except CommandError as error:
            return error.returncode, out.getvalue()
        return 0, out.getvalue()

    code, report = gate(stores["base"], stores["cand"])
    assert code == 1
    assert METRIC in report
    # the other way round people liked the candidate better: no regression
    code, report = gate(stores["cand"], stores["base"])
    assert code == 0, report
    assert METRIC in report
