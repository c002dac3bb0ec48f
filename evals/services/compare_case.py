"""One case of two runs side by side, artifacts included (the compare
page's drill-down). Reads only."""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import NotFound
from evals.core.compare import CaseChange, case_change
from evals.models import CaseResult, Run
from evals.selectors.runs import case_pair, run_get, runs_by_id


@dataclass(frozen=True, slots=True)
class CasePair:
    """One case of two runs, artifacts included, for the side-by-side page."""

    case_id: str
    base_run: Run
    candidate_run: Run
    base: CaseResult | None
    candidate: CaseResult | None

    @property
    def change(self) -> CaseChange | None:
        return case_change(
            self.base.passed if self.base is not None else None,
            self.candidate.passed if self.candidate is not None else None,
        )


def case_pair_get(*, base_run_id: str, candidate_run_id: str, case_id: str) -> CasePair:
    """Case ``case_id`` of both runs. ``NotFound`` when a run is unknown or
    neither run has the case. Two queries."""
    runs = runs_by_id([base_run_id, candidate_run_id])
    base = runs.get(base_run_id) or run_get(run_id=base_run_id)
    candidate = runs.get(candidate_run_id) or run_get(run_id=candidate_run_id)
    base_case, candidate_case = case_pair(
        base=base, candidate=candidate, case_id=case_id
    )
    if base_case is None and candidate_case is None:
        raise NotFound(f"neither run has case {case_id!r}", details={"caseId": case_id})
    return CasePair(case_id, base, candidate, base_case, candidate_case)
