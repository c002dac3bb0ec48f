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


def _table() -> str:
    return connection.ops.quote_name(CaseResult._meta.db_table)


def _collate(expression: str) -> str:
    """``expression`` ordered by code point (Python's order for str)."""
    if connection.vendor == "postgresql":
        return f'{expression} COLLATE "C"'
    return expression


_SIDES = (
    "b.passed AS base_passed, b.latency_ms AS base_latency, "
    "b.error AS base_error, c.passed AS cand_passed, "
    "c.latency_ms AS cand_latency, c.error AS cand_error, "
)


def _joined(pairs: Sequence[RunPair]) -> tuple[str, list[Any]]:
    """Every case of every pair with both sides and its rank, as one
    select: each base case with its candidate case (a left join on the
    unique (run, case id) index), then the candidate's cases the base lacks
    (an anti-join on the same index); no full outer join, which SQLite
    would run as a nested loop over both runs."""
    table = _table()
    parts: list[str] = []
    params: list[Any] = []
    for pair in pairs:
        parts.append(
            "SELECT CAST(%s AS TEXT) AS benchmark_id, b.case_id AS case_id, "  # noqa: S608
            "CASE WHEN c.passed IS NULL THEN 3 "
            "WHEN b.passed AND NOT c.passed THEN 0 "
            "WHEN c.passed AND NOT b.passed THEN 1 "
            "WHEN c.passed THEN 5 ELSE 4 END AS change_rank, "
            f"{_SIDES}"
            "COALESCE(c.stimulus_kind, b.stimulus_kind) AS kind, "
            "COALESCE(c.affordance, b.affordance) AS affordance, "
            "COALESCE(c.tags, b.tags) AS tags "
            f"FROM {table} b LEFT JOIN {table} c "
            "ON c.run_id = %s AND c.case_id = b.case_id WHERE b.run_id = %s"
        )
        parts.append(
            "SELECT CAST(%s AS TEXT), c.case_id, 2, "  # noqa: S608
            "NULL, NULL, NULL, c.passed, c.latency_ms, c.error, "
            "c.stimulus_kind, c.affordance, c.tags "
            f"FROM {table} c WHERE c.run_id = %s AND NOT EXISTS "
            f"(SELECT 1 FROM {table} b WHERE b.run_id = %s "
            "AND b.case_id = c.case_id)"
        )
        params.extend([pair.benchmark_id, pair.candidate_pk, pair.base_pk])
        params.extend([pair.benchmark_id, pair.candidate_pk, pair.base_pk])
    return " UNION ALL ".join(parts), params


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
    pairs: Sequence[RunPair], wanted: CaseFilter, after: Cursor | None
) -> tuple[str, list[Any]]:
    joined, params = _joined(pairs)
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
    page), and the cursor of the next page (None: this is the last). One
    query."""
    if not pairs:
        return [], None
    sql, params = _rows_sql(pairs, wanted, after)
    runs = {pair.benchmark_id: pair for pair in pairs}
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} LIMIT %s", [*params, limit + 1])
        rows = cursor.fetchall()
    diffs = [_diff(row, runs) for row in rows[:limit]]
    if len(rows) <= limit:
        return diffs, None
    last = diffs[-1]
    return diffs, (_RANK_OF[last.change], last.benchmark_id, last.case_id)


def case_diffs_iter(
    pairs: Sequence[RunPair], wanted: CaseFilter, *, chunk: int = CHUNK
) -> Iterator[CaseDiff]:
    """Every matching case in table order, read ``chunk`` rows at a time
    (keyset pages: no long-held cursor, nothing built in memory)."""
    after: Cursor | None = None
    while True:
        diffs, after = case_diffs_page(pairs, wanted, after=after, limit=chunk)
        yield from diffs
        if after is None:
            return


def change_counts(
    pairs: Sequence[RunPair], wanted: CaseFilter | None = None
) -> dict[CaseChange, int]:
    """How many cases (matching ``wanted``, default all) changed each way.
    One query."""
    counts = dict.fromkeys(CaseChange, 0)
    if not pairs:
        return counts
    joined, params = _joined(pairs)
    clauses, more = _where(wanted or CaseFilter())
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
    candidate's columns, else the base's). One query."""
    if not pairs:
        return OptionValues((), (), ())
    joined, params = _joined(pairs)
    tags = "CAST(x.tags AS TEXT)"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT x.kind, x.affordance, {tags} FROM ({joined}) x",  # noqa: S608
            params,
        )
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
    table = _table()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT b.case_id, b.passed FROM {table} b JOIN {table} c "  # noqa: S608
            "ON c.case_id = b.case_id AND c.run_id = %s "
            "WHERE b.run_id = %s AND b.passed <> c.passed",
            [pair.candidate_pk, pair.base_pk],
        )
        return [(case_id, bool(passed)) for case_id, passed in cursor.fetchall()]


# The scenario of a case id as ``evals.core.stats.split_epoch`` reads it, for
# ASCII digits: the id less a trailing ``#<digits>`` when something is left.
_STRIPPED = "rtrim(case_id, '0123456789')"
SCENARIO_SQL = (
    f"CASE WHEN length({_STRIPPED}) < length(case_id) "
    f"AND length({_STRIPPED}) > 1 "
    f"AND substr({_STRIPPED}, length({_STRIPPED}), 1) = '#' "
    f"THEN substr(case_id, 1, length({_STRIPPED}) - 1) ELSE case_id END"
)


def scenario_counts(run_pk: int) -> list[tuple[str, int, int]]:
    """Each scenario of a run with its number of epochs and of passed
    epochs, unordered. One query; a few rows per scenario, not per case."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.scenario, COUNT(*), "  # noqa: S608
            "SUM(CASE WHEN s.passed THEN 1 ELSE 0 END) "
            f"FROM (SELECT {SCENARIO_SQL} AS scenario, passed FROM {_table()} "
            "WHERE run_id = %s) s GROUP BY s.scenario",
            [run_pk],
        )
        return [
            (scenario, int(total), int(passed))
            for scenario, total, passed in cursor.fetchall()
        ]


def scenario_case_ids(pair: RunPair, scenarios: Sequence[str]) -> list[str]:
    """The case ids of either run of ``pair`` that are ``scenarios`` or one
    of their epochs (``<scenario>#...``). One query."""
    if not scenarios:
        return []
    clauses: list[str] = []
    params: list[Any] = [pair.base_pk, pair.candidate_pk]
    for scenario in scenarios:
        clauses.append("case_id = %s OR (case_id > %s AND case_id < %s)")
        params.extend([scenario, f"{scenario}#", f"{scenario}$"])
    case_id = _collate("case_id")
    ranges = " OR ".join(
        clause.replace("case_id >", f"{case_id} >").replace("case_id <", f"{case_id} <")
        for clause in clauses
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT case_id FROM {_table()} "  # noqa: S608
            f"WHERE run_id IN (%s, %s) AND ({ranges})",
            params,
        )
        return sorted(case_id for (case_id,) in cursor.fetchall())
