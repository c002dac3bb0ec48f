"""People's scores against the automatic checks of scenario results
(reviews.services.calibration, reading evals.facade.case_checks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from evals.facade import CaseCheck, case_checks
from evals.models import Run
from reviews.core.calibration import CASE, GROUNDING, HALLUCINATION, JUDGE, NO, YES
from reviews.models import Score, ScoreConfig, Subject
from reviews.services.calibration import config_calibration
from tests.reviews.reviews_support import scenario_score
from tests.reviews.subjects_support import scenario_run, suites_private

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(settings: Any, tmp_path: Path) -> Run:
    return scenario_run(suites_private(settings, tmp_path))


def test_case_checks_read_each_cases_verdicts(run: Run) -> None:
    cases = list(run.case_results.order_by("case_id"))
    found = case_checks(
        [(run.run_id, c.case_id) for c in cases] + [(run.run_id, "missing")]
    )
    assert set(found) == {(run.run_id, c.case_id) for c in cases}
    for case in cases:
        check = found[(run.run_id, case.case_id)]
        assert check.passed == case.passed
        assert check.grounded == case.details["grounding"]["pass"]
        assert check.hallucination == (case.details["hallucination"] or None)
        assert check.judge_label is None
    assert case_checks([]) == {}


def test_people_against_the_case_verdicts(run: Run) -> None:
    ann, bob = (get_user_model().objects.create(username=n) for n in ("ann", "bob"))
    config = ScoreConfig.objects.create(name="helpful", kind="boolean")
    # every smoke scenario passes on its script: fail two, so both columns fill
    for case_id in run.case_results.order_by("case_id").values_list(
        "case_id", flat=True
    )[:2]:
        run.case_results.filter(case_id=case_id).update(passed=False)
    cases = list(run.case_results.order_by("case_id"))
    # ann agrees with every verdict, bob says the opposite of every one
    for case in cases:
        scenario_score(
            config, case.run.run_id, case.case_id, ann, value_number=float(case.passed)
        )
        scenario_score(
            config,
            case.run.run_id,
            case.case_id,
            bob,
            value_number=float(not case.passed),
        )

    found = config_calibration(config, Score.objects.all())

    assert found.scores == 2 * len(cases) and found.skipped == 0
    tables = {t.table.check: t for t in found.tables}
    assert CASE in tables and HALLUCINATION in tables
    case_table = tables[CASE].table
    passed = sum(c.passed for c in cases)
    assert passed == len(cases) - 2
    assert case_table.rows == (YES, NO)
    assert case_table.columns == ("passed", "failed")
    assert case_table.count(YES, "passed") == passed
    assert case_table.count(NO, "failed") == 2
    assert case_table.count(NO, "passed") == passed
    assert case_table.count(YES, "failed") == 2
    assert case_table.disagreeing == {(NO, "passed"), (YES, "failed")}
    assert case_table.agreement == 0.5
    links = tables[CASE].disagreements
    assert {link.reviewer for link in links} == {"bob"}
    assert len(links) == len(cases)
    first = links[0]
    assert first.url == f"/evals/runs/{run.run_id}/scenarios/{first.case_id}/"
    assert tables[CASE].title == "case passed"
    grounded = [c for c in cases if c.details["grounding"]["pass"] is not None]
    if grounded:
        assert tables[GROUNDING].table.total == 2 * len(grounded)


def test_a_judge_label_in_the_details_is_a_check(run: Run) -> None:
    ann = get_user_model().objects.create(username="ann")
    config = ScoreConfig.objects.create(
        name="verdict", kind="categorical", labels=["good", "bad"]
    )
    case = run.case_results.order_by("case_id").first()
    case.details = {**case.details, "judge": {"label": "bad", "passed": False}}
    case.save(update_fields=["details"])
    scenario_score(config, case.run.run_id, case.case_id, ann, value_label="good")

    assert case_checks([(run.run_id, case.case_id)])[
        (run.run_id, case.case_id)
    ] == CaseCheck(
        passed=case.passed,
        grounded=case.details["grounding"]["pass"],
        hallucination=case.details["hallucination"] or None,
        judge_label="bad",
        judge_passed=False,
    )
    found = config_calibration(config, Score.objects.all())
    judge = next(t for t in found.tables if t.table.check == JUDGE)
    assert judge.table.count("good", "bad") == 1
    assert [(d.person, d.check) for d in judge.disagreements] == [("good", "bad")]


def test_scores_of_other_subjects_or_gone_cases_are_not_counted(run: Run) -> None:
    ann = get_user_model().objects.create(username="ann")
    config = ScoreConfig.objects.create(name="ok", kind="boolean")
    Score.objects.create(
        config=config,
        kind=Subject.THOUGHT,
        ref="3",
        source=Score.Source.REVIEW,
        author=ann,
        value_number=1,
    )
    Score.objects.create(
        config=config,
        kind=Subject.SCENARIO_RESULT,
        ref=f"{run.run_id}/no-such-case",
        run_id=run.run_id,
        case_id="no-such-case",
        source=Score.Source.REVIEW,
        author=ann,
        value_number=1,
    )
    found = config_calibration(config, Score.objects.all())
    assert (found.scores, found.skipped, found.tables) == (0, 1, ())
