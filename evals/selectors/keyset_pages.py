"""Keyset pages of the long lists: runs and shadow records newest first,
and one run's case results worst first (failed, then by case id).

A page is read from a cursor (``evals.core.keyset``): the rows after it
(``after``, further down the list) or before it (``before``, back up), so a
page deep in a list costs what the first does and no row is skipped or
shown twice when new ones arrive. Each read walks an index in its order:
runs ``run_newest_idx`` or ``run_benchmark_newest_idx``, shadow records
``shadow_newest_idx``, case results ``case_run_case_passed_idx``.

Reads only. A cursor this site did not write raises ``CursorError``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Q, QuerySet
from django.db.models.fields.tuple_lookups import (
    Tuple,
    TupleGreaterThan,
    TupleLessThan,
)

from evals.core.keyset import NEWEST_FIRST, WORST_FIRST, cursor_parts, cursor_text
from evals.models import CaseResult, Run


@dataclass(frozen=True, slots=True)
class Page[Row]:
    """One page of a list: its rows, and the cursors of the pages around it
    (``next_after``: the ``after`` of the page below, "" on the last;
    ``previous_before``: the ``before`` of the page above, "" on the first)."""

    rows: list[Row]
    next_after: str = ""
    previous_before: str = ""

    @property
    def is_first(self) -> bool:
        return not self.previous_before


def beyond(
    rows: QuerySet[Any], time_field: str, when: datetime, pk: int, *, newer: bool
) -> QuerySet[Any]:
    """The rows newer (or older) than the row (``when``, ``pk``), as one
    comparison of the pair: (time, pk) > (when, pk). The database reads it
    as a range of the (time, pk) index, so the walk starts at the cursor;
    the same test spelled as "time < when or (time = when and pk < pk)"
    left PostgreSQL to gather and sort every row above a deep cursor."""
    lookup = TupleGreaterThan if newer else TupleLessThan
    return rows.filter(lookup(Tuple(F(time_field), F("pk")), (when, pk)))


def _newest_key(row: Any, field: str) -> str:
    return cursor_text(getattr(row, field), row.pk)


def newest_first_page(
    rows: QuerySet[Any],
    *,
    time_field: str,
    size: int,
    after: str = "",
    before: str = "",
) -> Page[Any]:
    """A page of ``size`` rows of ``rows`` newest first (``time_field``, then
    pk): the first, or the one after ``after`` or before ``before``."""
    if before:
        when, pk = _newest_parts(before)
        newer = list(
            beyond(rows, time_field, when, pk, newer=True).order_by(time_field, "pk")[
                : size + 1
            ]
        )
        if len(newer) > size:
            shown = newer[:size][::-1]
            return Page(
                shown,
                next_after=_newest_key(shown[-1], time_field),
                previous_before=_newest_key(shown[0], time_field),
            )
        # Back at the top: the first page, full.
        return newest_first_page(rows, time_field=time_field, size=size)
    older = rows.order_by(f"-{time_field}", "-pk")
    if after:
        when, pk = _newest_parts(after)
        older = beyond(older, time_field, when, pk, newer=False)
    found = list(older[: size + 1])
    shown = found[:size]
    return Page(
        shown,
        next_after=_newest_key(shown[-1], time_field) if len(found) > size else "",
        # Past the end of the list, "newer" still leads back from where it was.
        previous_before=(_newest_key(shown[0], time_field) if shown else after)
        if after
        else "",
    )


def _newest_parts(text: str) -> tuple[datetime, int]:
    when, pk = cursor_parts(text, NEWEST_FIRST)
    assert isinstance(when, datetime)
    assert isinstance(pk, int)
    return when, pk


# --- one run's case results, worst first -----------------------------------------


@dataclass(frozen=True, slots=True)
class CaseCounts:
    """How many case results a run holds, and how many failed (from the
    rows themselves: exact, whatever the run's own counters say)."""

    total: int
    failed: int

    @property
    def passed(self) -> int:
        return self.total - self.failed


def case_counts(run: Run) -> CaseCounts:
    """The run's case results counted in one query (an index-only walk)."""
    found = CaseResult.objects.filter(run=run).aggregate(
        total=Count("pk"), failed=Count("pk", filter=Q(passed=False))
    )
    return CaseCounts(total=found["total"], failed=found["failed"])


def _case_key(case: CaseResult) -> str:
    return cursor_text(case.passed, case.case_id)


def case_page(
    run: Run,
    *,
    size: int,
    after: str = "",
    before: str = "",
    shape: Callable[[QuerySet[CaseResult]], QuerySet[CaseResult]] = lambda q: q,
) -> Page[CaseResult]:
    """A page of ``size`` of the run's case results, failed first, each part
    by case id: the first, or the one after ``after`` or before ``before``.

    Each part is its own query on (run, outcome, case id) in the order of
    ``case_run_case_passed_idx``; a page that crosses from the failed cases
    to the passed ones reads both. ``shape`` narrows the columns read
    (``defer``/``only``), never the rows."""
    cases = shape(CaseResult.objects.filter(run=run))
    if before:
        passed, case_id = _worst_parts(before)
        # Up the list: this outcome's cases before the cursor, then (from
        # the passed ones) every failed case, each part backwards.
        parts = [(passed, Q(case_id__lt=case_id))]
        if passed:
            parts.append((False, Q()))
        found = _walk(cases, parts, size + 1, backwards=True)
        if len(found) <= size:
            return case_page(run, size=size, shape=shape)
        shown = found[:size][::-1]
        return Page(
            shown,
            next_after=_case_key(shown[-1]),
            previous_before=_case_key(shown[0]),
        )
    parts = [(False, Q()), (True, Q())]
    if after:
        passed, case_id = _worst_parts(after)
        parts = [(passed, Q(case_id__gt=case_id))]
        if not passed:
            parts.append((True, Q()))
    found = _walk(cases, parts, size + 1, backwards=False)
    shown = found[:size]
    return Page(
        shown,
        next_after=_case_key(shown[-1]) if len(found) > size else "",
        previous_before=(_case_key(shown[0]) if shown else after) if after else "",
    )


def _walk(
    cases: QuerySet[CaseResult],
    parts: list[tuple[bool, Q]],
    wanted: int,
    *,
    backwards: bool,
) -> list[CaseResult]:
    order = "-case_id" if backwards else "case_id"
    found: list[CaseResult] = []
    for passed, bound in parts:
        if len(found) >= wanted:
            break
        found.extend(
            cases.filter(bound, passed=passed).order_by(order)[: wanted - len(found)]
        )
    return found


def _worst_parts(text: str) -> tuple[bool, str]:
    passed, case_id = cursor_parts(text, WORST_FIRST)
    assert isinstance(passed, bool)
    assert isinstance(case_id, str)
    return passed, case_id
