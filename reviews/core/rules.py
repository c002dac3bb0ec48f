"""The rules that fill a review queue from a run.

- ``sample``: N% of a run's scenarios (at least one), chosen by a hash of
  the run and the case id, so the same rule over the same run picks the
  same cases;
- ``hallucinations``: every scenario of a run whose goal referred to
  something that was not there (a hallucination category);
- ``flips``: the cases of a compare selection whose outcome changed
  between the base and the candidate run.

A rule that matches nothing is an error naming the rule's field: an empty
queue fill is never what was meant.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from reviews.core.assign import bucket

SAMPLE = "sample"
HALLUCINATIONS = "hallucinations"
RULES = (SAMPLE, HALLUCINATIONS)
MAX_RUN_ID_CHARS = 200


@dataclass(frozen=True, slots=True)
class Rule:
    """A checked fill rule: which rule, over which run, and for ``sample``
    the share of the run's scenarios (0 < percent <= 100)."""

    rule: str
    run_id: str
    percent: float = 100.0


def refusal(field: str, message: str) -> SchemaInvalid:
    """The error of a fill that cannot be done, naming ``field``."""
    return SchemaInvalid(message, problems=[SchemaProblem(field, "invalid", message)])


def rule_check(rule: Any, run_id: Any, percent: Any = None) -> Rule:
    """A ``Rule`` from what was asked; ``SchemaInvalid`` naming every bad
    field (``rule``, ``run_id``, ``percent``)."""
    problems: list[SchemaProblem] = []
    if rule not in RULES:
        problems.append(
            SchemaProblem(
                "rule", "invalid", f"the rule must be one of {', '.join(RULES)}."
            )
        )
    if not isinstance(run_id, str) or not 0 < len(run_id.strip()) <= MAX_RUN_ID_CHARS:
        problems.append(SchemaProblem("run_id", "invalid", "a run id is needed."))
    share = 100.0
    if rule == SAMPLE:
        number = None
        if isinstance(percent, int | float) and not isinstance(percent, bool):
            number = float(percent)
        elif isinstance(percent, str):
            try:
                number = float(percent)
            except ValueError:
                number = None
        if number is None or not math.isfinite(number) or not 0 < number <= 100:
            problems.append(
                SchemaProblem(
                    "percent",
                    "invalid",
                    "the share must be a number above 0, at most 100.",
                )
            )
        else:
            share = number
    if problems:
        raise SchemaInvalid("the fill rule is not valid", problems=problems)
    return Rule(rule=str(rule), run_id=str(run_id).strip(), percent=share)


def sample_cases(case_ids: Sequence[str], percent: float, *, seed: str) -> list[str]:
    """``percent``% of ``case_ids`` (rounded up, at least one when there is
    any), the same ones every time for the same ``seed``; sorted."""
    unique = sorted(set(case_ids))
    if not unique:
        return []
    count = min(len(unique), max(1, math.ceil(len(unique) * percent / 100)))
    ranked = sorted(unique, key=lambda case: (bucket(case, salt=seed), case))
    return sorted(ranked[:count])


def hallucination_cases(cases: Iterable[tuple[str, str | None]]) -> list[str]:
    """The case ids with a hallucination category, sorted."""
    return sorted({case for case, category in cases if category})


def flip_cases(base: Mapping[str, bool], candidate: Mapping[str, bool]) -> list[str]:
    """The case ids both runs have whose pass/fail differs, sorted."""
    return sorted(
        case for case in base.keys() & candidate.keys() if base[case] != candidate[case]
    )
