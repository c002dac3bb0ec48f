"""People against the automatic checks: confusion tables and disagreements.

For the scores of one config, each score is set beside the automatic
verdicts of the subject it scores. A scenario result has up to four checks
(``CHECKS``):

- ``case``: the case passed or failed (what the gate counts);
- ``grounding``: the extracted goal was grounded or not (no goal: no
  verdict, the score is not counted for this check);
- ``hallucination``: ``none``, or the hallucination category the grounding
  found;
- ``judge``: a model judge's label, where the case's details carry one.

Each score is one count (two reviewers of one subject count twice), in the
cell (the person's answer, the check's answer). Whether a cell is a
disagreement is decided by *sides*: a yes/no score's yes, a numeric score
in the upper half of its range (at or above the middle), a passed case, a
grounded goal, no hallucination and a judge's passing label are the good
side, their opposites the bad side; a cell whose two answers are on
opposite sides is a disagreement. A categorical score has no side; its cell
is a disagreement when the check's answer is itself one of the config's
labels (the two speak the same words, compared without case) and differs
from the person's. Cells where neither rule applies are shown and never
called disagreements. Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

CASE = "case"
GROUNDING = "grounding"
HALLUCINATION = "hallucination"
JUDGE = "judge"
CHECKS: tuple[str, ...] = (CASE, GROUNDING, HALLUCINATION, JUDGE)
CHECK_TITLES: Mapping[str, str] = {
    CASE: "case passed",
    GROUNDING: "goal grounded",
    HALLUCINATION: "hallucination found",
    JUDGE: "model judge",
}

NO_HALLUCINATION = "none"
YES, NO = "yes", "no"
UPPER, LOWER = "upper half", "lower half"


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer, a person's or a check's: its label, and its side (True:
    the good side, False: the bad side, None: no side)."""

    label: str
    good: bool | None = None


@dataclass(frozen=True, slots=True)
class CaseChecks:
    """The automatic verdicts of one scenario result (None: no verdict)."""

    passed: bool
    grounded: bool | None = None
    hallucination: str | None = None
    judge_label: str | None = None
    judge_passed: bool | None = None

    def answers(self) -> dict[str, Answer]:
        """Each check that has a verdict, as an ``Answer``."""
        out = {CASE: Answer("passed" if self.passed else "failed", self.passed)}
        if self.grounded is not None:
            label = "grounded" if self.grounded else "not grounded"
            out[GROUNDING] = Answer(label, self.grounded)
        out[HALLUCINATION] = (
            Answer(NO_HALLUCINATION, True)
            if not self.hallucination
            else Answer(self.hallucination, False)
        )
        if self.judge_label:
            out[JUDGE] = Answer(self.judge_label, self.judge_passed)
        return out


def human_answer(
    kind: str,
    *,
    value_number: float | None,
    value_label: str,
    min_value: float | None = None,
    max_value: float | None = None,
) -> Answer | None:
    """A score as an ``Answer`` (module docstring); None for a score
    without a value, or a numeric score of a config without a full range."""
    if kind == "boolean":
        if value_number is None:
            return None
        return Answer(YES, True) if value_number >= 0.5 else Answer(NO, False)
    if kind == "numeric":
        if value_number is None or min_value is None or max_value is None:
            return None
        upper = value_number >= (min_value + max_value) / 2
        return Answer(UPPER, True) if upper else Answer(LOWER, False)
    if kind == "categorical" and value_label:
        return Answer(value_label)
    return None


def is_disagreement(person: Answer, check: Answer, labels: Iterable[str] = ()) -> bool:
    """Whether a cell is a disagreement (module docstring)."""
    if not _can_disagree(person, check, labels):
        return False
    if person.good is not None and check.good is not None:
        return person.good != check.good
    return check.label.casefold() != person.label.casefold()


@dataclass(frozen=True, slots=True)
class Scored:
    """One score of a subject beside the subject's checks. ``subject``:
    the subject's key (shown and linked by the caller); ``reviewer``: who
    gave the score."""

    subject: str
    reviewer: str
    person: Answer
    checks: Mapping[str, Answer]


@dataclass(frozen=True, slots=True)
class Disagreement:
    subject: str
    reviewer: str
    person: str
    check: str


@dataclass(frozen=True, slots=True)
class ConfusionTable:
    """The counts of one check against the people's answers.

    ``rows``: the people's labels, ``columns``: the check's (the good side
    first, then the bad side, then labels without a side, each in the
    order first seen); ``counts[(row, column)]``; ``judged``: the cells
    that can agree or disagree; ``disagreeing``: those that disagree;
    ``disagreements``: every score in them."""

    check: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    counts: Mapping[tuple[str, str], int]
    judged: frozenset[tuple[str, str]]
    disagreeing: frozenset[tuple[str, str]]
    disagreements: tuple[Disagreement, ...] = field(default=())

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def judged_count(self) -> int:
        return sum(n for cell, n in self.counts.items() if cell in self.judged)

    @property
    def agreement(self) -> float | None:
        """The share of judged scores that agree; None when none is judged."""
        judged = self.judged_count
        return (judged - len(self.disagreements)) / judged if judged else None

    def count(self, row: str, column: str) -> int:
        return self.counts.get((row, column), 0)


def _ordered(answers: Iterable[Answer]) -> tuple[str, ...]:
    seen: dict[str, bool | None] = {}
    for answer in answers:
        seen.setdefault(answer.label, answer.good)
    # good side first, then bad, then labels without a side, each by first sight
    rank = {True: 0, False: 1, None: 2}
    return tuple(sorted(seen, key=lambda label: rank[seen[label]]))


def confusion_tables(
    scored: Sequence[Scored], labels: Sequence[str] = ()
) -> list[ConfusionTable]:
    """One table per check that some scored subject has, in ``CHECKS``
    order. ``labels``: the config's labels (categorical scores)."""
    tables: list[ConfusionTable] = []
    for check in CHECKS:
        pairs = [(s, s.checks[check]) for s in scored if check in s.checks]
        if not pairs:
            continue
        counts: dict[tuple[str, str], int] = {}
        judged: set[tuple[str, str]] = set()
        disagreeing: set[tuple[str, str]] = set()
        disagreements: list[Disagreement] = []
        for score, answer in pairs:
            cell = (score.person.label, answer.label)
            counts[cell] = counts.get(cell, 0) + 1
            if _can_disagree(score.person, answer, labels):
                judged.add(cell)
            if is_disagreement(score.person, answer, labels):
                disagreeing.add(cell)
                disagreements.append(Disagreement(score.subject, score.reviewer, *cell))
        tables.append(
            ConfusionTable(
                check=check,
                rows=_ordered(s.person for s, _ in pairs),
                columns=_ordered(a for _, a in pairs),
                counts=counts,
                judged=frozenset(judged),
                disagreeing=frozenset(disagreeing),
                disagreements=tuple(disagreements),
            )
        )
    return tables


def _can_disagree(person: Answer, check: Answer, labels: Iterable[str]) -> bool:
    """Whether the cell is judged at all (it agrees when it is not a
    disagreement)."""
    if person.good is not None and check.good is not None:
        return True
    if person.good is None:
        return check.label.casefold() in {label.casefold() for label in labels}
    return False
