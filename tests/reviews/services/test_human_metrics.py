"""run_human_metrics_refresh: a run's human scores become its ``human.``
metrics (reviews.services.human_metrics)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from evals.models import Run
from reviews.models import Score, ScoreConfig, Subject
from reviews.services.human_metrics import run_human_metrics_refresh
from tests.reviews.reviews_support import scenario_score
from tests.reviews.subjects_support import scenario_run, suites_private

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(settings: Any, tmp_path: Path) -> Run:
    return scenario_run(suites_private(settings, tmp_path))


def test_scores_of_a_run_become_its_human_metrics(run: Run) -> None:
    users = [get_user_model().objects.create(username=f"r{i}") for i in range(2)]
    helpful = ScoreConfig.objects.create(name="helpful", kind="boolean")
    tone = ScoreConfig.objects.create(
        name="tone", kind="categorical", labels=["calm", "rude"]
    )
    cases = sorted(run.case_results.values_list("case_id", flat=True))[:2]
    scenario_score(
        helpful, run.run_id, cases[0], users[0], value_number=1, value_label="true"
    )
    scenario_score(
        helpful, run.run_id, cases[0], users[1], value_number=0, value_label="false"
    )
    scenario_score(
        helpful, run.run_id, cases[1], users[0], value_number=1, value_label="true"
    )
    scenario_score(tone, run.run_id, cases[0], users[0], value_label="rude")

    stored = run_human_metrics_refresh(run.run_id)

    # helpful: case 0 is half yes, case 1 yes -> 0.75 over the two cases.
    assert stored == {
        "human.helpful": pytest.approx(0.75),
        "human.tone.calm": 0.0,
        "human.tone.rude": 1.0,
    }
    run.refresh_from_db()
    assert run.metrics["human.helpful"] == pytest.approx(0.75)
    assert run.uncertainty["metrics"]["human.helpful"]["n"] == 2


def test_scores_of_other_subjects_and_runs_do_not_count(run: Run) -> None:
    user = get_user_model().objects.create(username="r")
    config = ScoreConfig.objects.create(name="q", kind="numeric", max_value=5)
    Score.objects.create(
        config=config,
        kind=Subject.THOUGHT,
        ref="7",
        run_id=run.run_id,
        source=Score.Source.REVIEW,
        author=user,
        value_number=5,
    )
    assert run_human_metrics_refresh(run.run_id) == {}


def test_a_removed_score_removes_its_metric(run: Run) -> None:
    user = get_user_model().objects.create(username="r")
    config = ScoreConfig.objects.create(name="q", kind="numeric", max_value=5)
    case = run.case_results.values_list("case_id", flat=True).first()
    score = scenario_score(config, run.run_id, case, user, value_number=4)
    assert run_human_metrics_refresh(run.run_id) == {"human.q": 4.0}
    score.delete()
    assert run_human_metrics_refresh(run.run_id) == {}
    run.refresh_from_db()
    assert "human.q" not in run.metrics


def test_an_unknown_or_empty_run_is_none() -> None:
    assert run_human_metrics_refresh("nope") is None
    assert run_human_metrics_refresh("") is None
