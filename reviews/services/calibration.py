"""People's scores against the automatic checks, for one config version.

``config_calibration(config, scores)`` takes the scores of one config
version that are about scenario results, reads each case's automatic
verdicts through the evals app's facade (``evals.facade.case_checks``:
passed, goal grounded, hallucination category, a model judge's label) and
builds one confusion table per check with its disagreements
(``reviews.core.calibration``). Each disagreement links to the scenario's
page. Scores of other subjects (thoughts, episodes, decisions) have no
automatic verdict here and are not counted; nor are scores of a case that
no longer exists. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet
from django.urls import reverse

from evals.facade import case_checks
from reviews.core.calibration import (
    CHECK_TITLES,
    CaseChecks,
    ConfusionTable,
    Disagreement,
    Scored,
    confusion_tables,
    human_answer,
)
from reviews.models import Score, ScoreConfig, Subject
from reviews.services.subjects import split_scenario_ref


@dataclass(frozen=True, slots=True)
class DisagreementLink:
    """A disagreement as the page lists it: the scenario, who scored it,
    the two answers and the scenario's page."""

    run_id: str
    case_id: str
    reviewer: str
    person: str
    check: str
    url: str


@dataclass(frozen=True, slots=True)
class CheckTable:
    """One confusion table with its title and its linked disagreements."""

    table: ConfusionTable
    title: str
    disagreements: tuple[DisagreementLink, ...]


@dataclass(frozen=True, slots=True)
class Calibration:
    """The tables of one config version; ``scores``: the scenario-result
    scores counted, ``skipped``: those without an answer or a case."""

    config: ScoreConfig
    tables: tuple[CheckTable, ...]
    scores: int
    skipped: int


def giver_name(score: Score) -> str:
    if score.author is not None:
        return str(score.author.get_username())
    return f"key {score.api_key.name}" if score.api_key is not None else "unknown"


def _case_of(score: Score) -> tuple[str, str] | None:
    if score.run_id and score.case_id:
        return score.run_id, score.case_id
    return split_scenario_ref(score.ref)


def config_calibration(config: ScoreConfig, scores: QuerySet[Score]) -> Calibration:
    """The confusion tables of ``config`` over ``scores`` (module docstring)."""
    rows = list(
        scores.filter(config=config, kind=Subject.SCENARIO_RESULT)
        .select_related("author", "api_key")
        .order_by("id")
    )
    cases = {score.pk: _case_of(score) for score in rows}
    found = case_checks(case for case in cases.values() if case is not None)
    labels = tuple(str(label) for label in config.labels or ())
    scored: list[Scored] = []
    where: dict[str, tuple[str, str]] = {}
    for score in rows:
        case = cases[score.pk]
        check = found.get(case) if case is not None else None
        person = human_answer(
            config.kind,
            value_number=score.value_number,
            value_label=score.value_label,
            min_value=config.min_value,
            max_value=config.max_value,
        )
        if case is None or check is None or person is None:
            continue
        subject = f"{case[0]}/{case[1]}"
        where[subject] = case
        answers = CaseChecks(
            passed=check.passed,
            grounded=check.grounded,
            hallucination=check.hallucination,
            judge_label=check.judge_label,
            judge_passed=check.judge_passed,
        ).answers()
        scored.append(Scored(subject, giver_name(score), person, answers))
    tables = tuple(
        CheckTable(
            table=table,
            title=CHECK_TITLES[table.check],
            disagreements=tuple(
                _link(d, where[d.subject]) for d in table.disagreements
            ),
        )
        for table in confusion_tables(scored, labels)
    )
    return Calibration(config, tables, len(scored), len(rows) - len(scored))


def _link(disagreement: Disagreement, case: tuple[str, str]) -> DisagreementLink:
    run_id, case_id = case
    return DisagreementLink(
        run_id=run_id,
        case_id=case_id,
        reviewer=disagreement.reviewer,
        person=disagreement.person,
        check=disagreement.check,
        url=reverse("evals:scenario-detail", args=[run_id, case_id]),
    )
