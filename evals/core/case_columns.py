"""A run's case results as columns: what the ``--stat`` gate reads of them.

The gate pairs two runs of 100,000 case results each on their case ids and
needs nothing but each case's id, outcome and score. Read as columns straight
from a stored run's decoded bytes (``evals.core.run_case_results``), they
spare building 100,000 ``CaseResult`` objects per run, most of the time
reading a store took; a run read otherwise gives its columns from its case
results (``case_columns_of``), the same values. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.core.formats_types import CaseResult


@dataclass(frozen=True, slots=True)
class CaseColumns:
    """Column i is case i of a run, in the order of its ``caseResults``;
    ``scores[i]`` is ``None`` where that case has no score."""

    case_ids: tuple[str, ...]
    passed: tuple[bool, ...]
    scores: tuple[float | None, ...]


def case_columns_of(cases: tuple[CaseResult, ...]) -> CaseColumns:
    """The columns of built case results."""
    return CaseColumns(
        tuple(case.case_id for case in cases),
        tuple(case.passed for case in cases),
        tuple(case.score for case in cases),
    )
