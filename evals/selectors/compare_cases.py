"""The case reads of a comparison, done in the database at any size.

A comparison pairs the case results of a base run and a candidate run of
one benchmark on their case id (several such pairs for a snapshot). Nothing
here reads every case into Python: the change counts, the filter options
and the flips come back aggregated, the case table one keyset page at a
time in the order of ``evals.core.compare.sorted_cases`` (flips to fail
first, then flips to pass, new, missing, still failing, still passing; then
benchmark and case id, compared by code point on every database), and the
paired statistics get each scenario's epoch and pass counts
(``scenario_counts``). ``case_diffs_iter`` streams every matching case for
the CSV download in the same order, a chunk at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection

from evals.core.compare import (
    CaseChange,
    CaseDiff,
    CaseFilter,
    CaseSide,
)
from evals.models import CaseResult

# The change of each rank, the order of ``CaseChange`` (worst first).
RANKS: tuple[CaseChange, ...] = tuple(CaseChange)
_RANK_OF = {change: rank for rank, change in enumerate(RANKS)}
CHUNK = 2000


@dataclass(frozen=True, slots=True)
class RunPair:
    """The two runs of one benchmark whose cases are compared."""

    benchmark_id: str
    base_pk: int
    base_run_id: str
    candidate_pk: int
    candidate_run_id: str


Cursor = tuple[int, str, str]  # (rank, benchmark id, case id) of the last row


def table_name() -> str:
    return connection.ops.quote_name(CaseResult._meta.db_table)


def _collate(expression: str) -> str:
    """``expression`` ordered by code point (Python's order for str)."""
    if connection.vendor == "postgresql":
        return f'{expression} COLLATE "C"'
    return expression


_RANK = (
    "CASE WHEN c.passed IS NULL THEN 3 "
    "WHEN b.passed AND NOT c.passed THEN 0 "
    "WHEN c.passed AND NOT b.passed THEN 1 "
    "WHEN c.passed THEN 5 ELSE 4 END"
)
_WIDE = (
    ", b.passed AS base_passed, b.latency_ms AS base_latency, "
    "b.error AS base_error, c.passed AS cand_passed, "
    "c.latency_ms AS cand_latency, c.error AS cand_error, "
    "COALESCE(c.stimulus_kind, b.stimulus_kind) AS kind, "
    "COALESCE(c.affordance, b.affordance) AS affordance, "
    "COALESCE(c.tags, b.tags) AS tags"
)
_WIDE_NEW = (
    ", NULL, NULL, NULL, c.passed, c.latency_ms, c.error, "
    "c.stimulus_kind, c.affordance, c.tags"
)


def _joined(pairs: Sequence[RunPair], *, wide: bool = True) -> tuple[str, list[Any]]:
    """Every case of every pair with its rank (and, ``wide``, both sides
    and the filter columns), as one select: each base case with its
    candidate case (a left join on the unique (run, case id) index), then
    the candidate's cases the base lacks (an anti-join on the same index);
    no full outer join, which SQLite would run as a nested loop. Narrow,
    it reads only case ids and outcomes (an index can answer it)."""
    table = table_name()
    parts: list[str] = []
    params: list[Any] = []
    for pair in pairs:
        parts.append(
            "SELECT CAST(%s AS TEXT) AS benchmark_id, b.case_id AS case_id, "  # noqa: S608
            f"{_RANK} AS change_rank, CAST(%s AS INTEGER) AS base_pk, "
            "CAST(%s AS INTEGER) AS cand_pk"
            f"{_WIDE if wide else ''} "
            f"FROM {table} b LEFT JOIN {table} c "
            "ON c.run_id = %s AND c.case_id = b.case_id WHERE b.run_id = %s"
        )
        parts.append(
            "SELECT CAST(%s AS TEXT), c.case_id, 2, CAST(%s AS INTEGER), "  # noqa: S608
            "CAST(%s AS INTEGER)"
            f"{_WIDE_NEW if wide else ''} "
            f"FROM {table} c WHERE c.run_id = %s AND NOT EXISTS "
            f"(SELECT 1 FROM {table} b WHERE b.run_id = %s "
            "AND b.case_id = c.case_id)"
        )
        for _ in range(2):
            params.extend(
                [
                    pair.benchmark_id,
                    pair.base_pk,
                    pair.candidate_pk,
                    pair.candidate_pk,
                    pair.base_pk,
                ]
            )
    return " UNION ALL ".join(parts), params


def _needs_columns(wanted: CaseFilter) -> bool:
    return bool(wanted.stimulus_kind or wanted.affordance or wanted.tag)


def _where(wanted: CaseFilter) -> tuple[list[str], list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if wanted.only == "regressions":
        clauses.append("x.change_rank = 0")
    elif wanted.only == "changed":
        clauses.append("x.change_rank <= 3")
    elif wanted.only == "flipped":
        clauses.append("x.change_rank <= 1")
    if wanted.change:
        clauses.append("x.change_rank = %s")
        params.append(_RANK_OF[CaseChange(wanted.change)])
    for column, value in (
        ("benchmark_id", wanted.benchmark),
        ("kind", wanted.stimulus_kind),
        ("affordance", wanted.affordance),
    ):
        if value:
            clauses.append(f"x.{column} = %s")
            params.append(value)
    if wanted.tag:
        if connection.vendor == "postgresql":
            clauses.append("jsonb_exists(x.tags, %s)")
        else:
            clauses.append(
                "EXISTS (SELECT 1 FROM json_each(x.tags) AS t WHERE t.value = %s)"
            )
        params.append(wanted.tag)
    return clauses, params


def _rows_sql(
    pairs: Sequence[RunPair],
    wanted: CaseFilter,
    after: Cursor | None,
    *,
    wide: bool = True,
) -> tuple[str, list[Any]]:
    joined, params = _joined(pairs, wide=wide)
    clauses, more = _where(wanted)
    params.extend(more)
    benchmark, case_id = _collate("x.benchmark_id"), _collate("x.case_id")
    if after is not None:
        clauses.append(
            f"(x.change_rank > %s OR (x.change_rank = %s AND ({benchmark} > %s "
            f"OR (x.benchmark_id = %s AND {case_id} > %s))))"
        )
        rank, after_benchmark, after_case = after
        params.extend([rank, rank, after_benchmark, after_benchmark, after_case])
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    sql = (
        f"SELECT x.* FROM ({joined}) x{where} "  # noqa: S608
        f"ORDER BY x.change_rank, {benchmark}, {case_id}"
    )
    return sql, params


def _diff(row: Sequence[Any], runs: dict[str, RunPair]) -> CaseDiff:
    (
        benchmark_id,
        case_id,
        rank,
        _,
        _,
        base_passed,
        base_latency,
        base_error,
        cand_passed,
        cand_latency,
        cand_error,
        kind,
        affordance,
        tags,
    ) = row
    pair = runs[benchmark_id]
    return CaseDiff(
        benchmark_id,
        case_id,
        RANKS[rank],
        CaseSide(pair.base_run_id, bool(base_passed), base_latency, base_error)
        if base_passed is not None
        else None,
        CaseSide(pair.candidate_run_id, bool(cand_passed), cand_latency, cand_error)
        if cand_passed is not None
        else None,
        kind,
        affordance,
        _tags(tags),
    )


def _tag_tuple(text: str | None) -> tuple[str, ...]:
    loaded = json.loads(text) if text else None
    return tuple(str(tag) for tag in loaded or ())


def _tags(value: Any) -> tuple[str, ...]:
    """A tags column as read: JSON text (SQLite) or the list (PostgreSQL)."""
    if isinstance(value, str):
        return _tag_tuple(value)
    return tuple(str(tag) for tag in value or ())


def case_diffs_page(
    pairs: Sequence[RunPair],
    wanted: CaseFilter,
    *,
    after: Cursor | None,
    limit: int,
) -> tuple[list[CaseDiff], Cursor | None]:
    """One page of the matching cases after ``after`` (None: the first
    page), and the cursor of the next page (None: this is the last).
    Without a kind, affordance or tag filter the cases are ranked on their
    ids and outcomes alone and only the page's rows are read whole (two
    queries); with one, one query over whole rows."""
    if not pairs:
        return [], None
    runs = {pair.benchmark_id: pair for pair in pairs}
    if _needs_columns(wanted):
        sql, params = _rows_sql(pairs, wanted, after)
        with connection.cursor() as cursor:
            cursor.execute(f"{sql} LIMIT %s", [*params, limit + 1])
            diffs = [_diff(row, runs) for row in cursor.fetchall()]
    else:
        sql, params = _rows_sql(pairs, wanted, after, wide=False)
        with connection.cursor() as cursor:
            cursor.execute(f"{sql} LIMIT %s", [*params, limit + 1])
            keys = cursor.fetchall()
        diffs = _whole(keys, runs)
    if len(diffs) <= limit:
        return diffs, None
    last = diffs[limit - 1]
    return diffs[:limit], (_RANK_OF[last.change], last.benchmark_id, last.case_id)


def _whole(keys: Sequence[Sequence[Any]], runs: dict[str, RunPair]) -> list[CaseDiff]:
    """The ranked ``keys`` (benchmark, case id, rank, base pk, candidate
    pk) with both sides read whole (one query)."""
    if not keys:
        return []
    pks = sorted({pk for key in keys for pk in key[3:5]})
    case_ids = sorted({key[1] for key in keys})
    found: dict[tuple[int, str], Sequence[Any]] = {}
    for start in range(0, len(case_ids), 500):
        chunk = case_ids[start : start + 500]
        marks = ", ".join(["%s"] * len(chunk))
        runs_marks = ", ".join(["%s"] * len(pks))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT run_id, case_id, passed, latency_ms, error, "  # noqa: S608
                f"stimulus_kind, affordance, tags FROM {table_name()} "
                f"WHERE run_id IN ({runs_marks}) AND case_id IN ({marks})",
                [*pks, *chunk],
            )
            for row in cursor.fetchall():
                found[(row[0], row[1])] = row
    rows = []
    for benchmark_id, case_id, rank, base_pk, cand_pk in keys:
        old, new = found.get((base_pk, case_id)), found.get((cand_pk, case_id))
        if rank == _RANK_OF[CaseChange.NEW]:
            old = None
        shown = new if new is not None else old
        assert shown is not None
        rows.append(
            (benchmark_id, case_id, rank, base_pk, cand_pk)
            + (tuple(old[2:5]) if old is not None else (None, None, None))
            + (tuple(new[2:5]) if new is not None else (None, None, None))
            + tuple(shown[5:8])
        )
    return [_diff(row, runs) for row in rows]


def case_diffs_iter(
    pairs: Sequence[RunPair], wanted: CaseFilter, *, chunk: int = CHUNK
) -> Iterator[CaseDiff]:
    """Every matching case in table order from one query, read ``chunk``
    rows at a time (a server-side cursor on PostgreSQL): nothing is built
    in memory, and the cases are ranked once."""
    if not pairs:
        return
    runs = {pair.benchmark_id: pair for pair in pairs}
    sql, params = _rows_sql(pairs, wanted, None)
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(chunk):
            yield from (_diff(row, runs) for row in rows)


def change_counts(
    pairs: Sequence[RunPair], wanted: CaseFilter | None = None
) -> dict[CaseChange, int]:
    """How many cases (matching ``wanted``, default all) changed each way.
    One query."""
    counts = dict.fromkeys(CaseChange, 0)
    if not pairs:
        return counts
    wanted = wanted or CaseFilter()
    joined, params = _joined(pairs, wide=_needs_columns(wanted))
    clauses, more = _where(wanted)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT x.change_rank, COUNT(*) FROM ({joined}) x{where} "  # noqa: S608
            "GROUP BY x.change_rank",
            [*params, *more],
        )
        for rank, count in cursor.fetchall():
            counts[RANKS[rank]] = count
    return counts


@dataclass(frozen=True, slots=True)
class OptionValues:
    stimulus_kinds: tuple[str, ...]
    affordances: tuple[str, ...]
    tags: tuple[str, ...]


def option_values(pairs: Sequence[RunPair]) -> OptionValues:
    """The kinds, affordances and tags the compared cases show (the
    candidate's columns, else the base's): those of the candidate's cases,
    and of the base's cases the candidate lacks. One query."""
    if not pairs:
        return OptionValues((), (), ())
    table = table_name()
    parts: list[str] = []
    params: list[Any] = []
    for pair in pairs:
        parts.append(
            "SELECT stimulus_kind, affordance, CAST(tags AS TEXT) "  # noqa: S608
            f"FROM {table} WHERE run_id = %s"
        )
        parts.append(
            "SELECT b.stimulus_kind, b.affordance, CAST(b.tags AS TEXT) "  # noqa: S608
            f"FROM {table} b WHERE b.run_id = %s AND NOT EXISTS "
            f"(SELECT 1 FROM {table} c WHERE c.run_id = %s "
            "AND c.case_id = b.case_id)"
        )
        params.extend([pair.candidate_pk, pair.base_pk, pair.candidate_pk])
    with connection.cursor() as cursor:
        cursor.execute(" UNION ".join(parts), params)
        rows = cursor.fetchall()
    kinds = {kind for kind, _, _ in rows if kind}
    affordances = {affordance for _, affordance, _ in rows if affordance}
    found: set[str] = set()
    for text in {text for _, _, text in rows}:
        found.update(_tag_tuple(text))
    return OptionValues(
        tuple(sorted(kinds)), tuple(sorted(affordances)), tuple(sorted(found))
    )


def flipped_cases(pair: RunPair) -> list[tuple[str, bool]]:
    """The cases of ``pair`` that passed on one side and failed on the
    other: (case id, passed in the base). One query."""
    table = table_name()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT b.case_id, b.passed FROM {table} b JOIN {table} c "  # noqa: S608
            "ON c.case_id = b.case_id AND c.run_id = %s "
            "WHERE b.run_id = %s AND b.passed <> c.passed",
            [pair.candidate_pk, pair.base_pk],
        )
        return [(case_id, bool(passed)) for case_id, passed in cursor.fetchall()]
