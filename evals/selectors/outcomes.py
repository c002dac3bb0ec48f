"""Reads of runs' case outcomes (case id and pass/fail only) for the paired
comparisons of the trends page and the overview: one query for any number
of runs, no artifact, no other column."""

from __future__ import annotations

from collections.abc import Iterable

from evals.core.compare_stats import Outcomes
from evals.models import CaseResult


def run_outcomes(run_pks: Iterable[int]) -> dict[int, Outcomes]:
    """Each run's case ids and outcomes, keyed by run pk, case ids sorted
    (one query); a run without case results maps to empty ``Outcomes``."""
    wanted = sorted(set(run_pks))
    ids: dict[int, list[str]] = {pk: [] for pk in wanted}
    passed: dict[int, list[bool]] = {pk: [] for pk in wanted}
    if wanted:
        rows = (
            CaseResult.objects.filter(run_id__in=wanted)
            .order_by("run_id", "case_id")
            .values_list("run_id", "case_id", "passed")
        )
        for run_pk, case_id, ok in rows.iterator(chunk_size=10_000):
            ids[run_pk].append(case_id)
            passed[run_pk].append(ok)
    return {pk: Outcomes(tuple(ids[pk]), tuple(passed[pk])) for pk in wanted}
