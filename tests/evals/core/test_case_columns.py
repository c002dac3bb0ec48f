"""evals.core.case_columns: a run's case results as columns, in case order."""

from __future__ import annotations

from evals.core.case_columns import CaseColumns, case_columns_of
from evals.core.formats_types import CaseResult


def test_columns_of_built_case_results_keep_their_order_and_missing_scores() -> None:
    cases = (
        CaseResult("b#1", True, 0.5, 3.0, "n"),
        CaseResult("a#0", False),
        CaseResult("b#0", True, 2),
    )

    assert case_columns_of(cases) == CaseColumns(
        ("b#1", "a#0", "b#0"), (True, False, True), (0.5, None, 2)
    )


def test_no_case_results_are_empty_columns() -> None:
    assert case_columns_of(()) == CaseColumns((), (), ())
