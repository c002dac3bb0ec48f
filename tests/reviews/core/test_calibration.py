"""People against the automatic checks (reviews.core.calibration)."""

from __future__ import annotations

import pytest

from reviews.core.calibration import (
    CASE,
    GROUNDING,
    HALLUCINATION,
    JUDGE,
    LOWER,
    NO,
    UPPER,
    YES,
    Answer,
    CaseChecks,
    Disagreement,
    Scored,
    confusion_tables,
    human_answer,
    is_disagreement,
)


def test_case_checks_as_answers() -> None:
    answers = CaseChecks(
        passed=False, grounded=True, hallucination="phantom_item", judge_label="ok"
    ).answers()
    assert answers == {
        CASE: Answer("failed", False),
        GROUNDING: Answer("grounded", True),
        HALLUCINATION: Answer("phantom_item", False),
        JUDGE: Answer("ok", None),
    }
    # no goal: no grounding verdict; no judge label: no judge check
    bare = CaseChecks(passed=True).answers()
    assert bare == {CASE: Answer("passed", True), HALLUCINATION: Answer("none", True)}


@pytest.mark.parametrize(
    ("kind", "number", "label", "expected"),
    [
        ("boolean", 1.0, "true", Answer(YES, True)),
        ("boolean", 0.0, "false", Answer(NO, False)),
        ("numeric", 3.0, "", Answer(UPPER, True)),  # the middle of 1..5
        ("numeric", 2.9, "", Answer(LOWER, False)),
        ("categorical", None, "rude", Answer("rude", None)),
        ("categorical", None, "", None),
        ("boolean", None, "", None),
        ("video", 1.0, "x", None),
    ],
)
def test_scores_as_answers(
    kind: str, number: float | None, label: str, expected: Answer | None
) -> None:
    found = human_answer(
        kind, value_number=number, value_label=label, min_value=1, max_value=5
    )
    assert found == expected


def test_a_numeric_score_without_a_range_has_no_answer() -> None:
    assert human_answer("numeric", value_number=3, value_label="") is None


def test_sides_decide_a_disagreement() -> None:
    assert is_disagreement(Answer(YES, True), Answer("failed", False))
    assert not is_disagreement(Answer(YES, True), Answer("passed", True))
    # a person with a side against a check without one: never judged
    assert not is_disagreement(Answer(YES, True), Answer("ok", None))


def test_labels_disagree_only_when_they_speak_the_checks_words() -> None:
    labels = ("none", "phantom_item", "wrong_place")
    assert is_disagreement(Answer("none"), Answer("phantom_item", False), labels)
    assert not is_disagreement(Answer("Phantom_Item"), Answer("phantom_item"), labels)
    # the check's answer is not among the config's labels: not judged
    assert not is_disagreement(Answer("rude"), Answer("failed", False), ("rude",))


def scored(subject: str, reviewer: str, person: Answer, **checks: Answer) -> Scored:
    return Scored(subject, reviewer, person, checks)


def test_confusion_tables_count_each_score_and_list_disagreements() -> None:
    passed, failed = Answer("passed", True), Answer("failed", False)
    rows = [
        scored("s1", "ann", Answer(YES, True), case=passed),
        scored("s1", "bob", Answer(NO, False), case=passed),
        scored("s2", "ann", Answer(NO, False), case=failed),
        scored(
            "s3",
            "ann",
            Answer(YES, True),
            case=failed,
            grounding=Answer("grounded", True),
        ),
    ]
    tables = confusion_tables(rows)

    assert [t.check for t in tables] == [CASE, GROUNDING]
    case = tables[0]
    assert case.rows == (YES, NO)
    assert case.columns == ("passed", "failed")
    assert case.count(YES, "passed") == 1
    assert case.count(NO, "passed") == 1
    assert case.count(NO, "failed") == 1
    assert case.count(YES, "failed") == 1
    assert case.total == 4
    assert case.disagreeing == {(NO, "passed"), (YES, "failed")}
    assert case.disagreements == (
        Disagreement("s1", "bob", NO, "passed"),
        Disagreement("s3", "ann", YES, "failed"),
    )
    assert case.agreement == 0.5
    grounding = tables[1]
    assert grounding.total == 1 and grounding.agreement == 1.0


def test_a_table_of_cells_that_cannot_disagree_has_no_agreement_share() -> None:
    tables = confusion_tables(
        [scored("s1", "ann", Answer("rude"), case=Answer("passed", True))],
        labels=("rude", "calm"),
    )
    assert tables[0].disagreements == ()
    assert tables[0].agreement is None
    assert tables[0].total == 1


def test_no_scores_no_tables() -> None:
    assert confusion_tables([]) == []
