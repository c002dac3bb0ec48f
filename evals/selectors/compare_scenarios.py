"""The comparison's reads by scenario (case ids ``<scenario>#<epoch>``):
each scenario's epoch and pass counts for the paired statistics, and the
case ids of a few scenarios for the links of the flips. Rows per scenario,
never per case."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection

from evals.core.stats import split_epoch
from evals.selectors.compare_cases import RunPair, table_name

# Ids per lookup: every link of a page of flips (50 x K + 1) in one query.
CHUNK = 5000

# The scenario of a case id as ``evals.core.stats.split_epoch`` reads it, for
# ASCII digits: the id less a trailing ``#<digits>`` when something is left.
# Over a select of ``case_id`` and ``stripped``, the case id less its
# trailing ASCII digits (computed once per row).
SCENARIO_SQL = (
    "CASE WHEN stripped LIKE '_%%#' AND length(stripped) < length(case_id) "
    "THEN substr(stripped, 1, length(stripped) - 1) ELSE case_id END"
)


def _fence() -> str:
    """A subquery PostgreSQL computes once rather than inlining its columns
    into every use (``OFFSET 0``; SQLite has no such need)."""
    return " OFFSET 0" if connection.vendor == "postgresql" else ""


def scenario_counts(run_pks: Sequence[int]) -> dict[int, list[tuple[str, int, int]]]:
    """Each scenario of each run with its number of epochs and of passed
    epochs, unordered, keyed by run pk. One query; a row per scenario, not
    per case."""
    out: dict[int, list[tuple[str, int, int]]] = {pk: [] for pk in run_pks}
    marks = ", ".join(["%s"] * len(out))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.run_id, s.scenario, COUNT(*), "  # noqa: S608
            "SUM(CASE WHEN s.passed THEN 1 ELSE 0 END) "
            f"FROM (SELECT run_id, {SCENARIO_SQL} AS scenario, passed FROM "
            "(SELECT run_id, case_id, rtrim(case_id, '0123456789') AS stripped, "
            f"passed FROM {table_name()} WHERE run_id IN ({marks}){_fence()}) r) s "
            "GROUP BY s.run_id, s.scenario",
            list(out),
        )
        for run_pk, scenario, total, passed in cursor.fetchall():
            out[run_pk].append((scenario, int(total), int(passed)))
    return out


def scenario_case_ids(
    pair: RunPair, scenarios: Sequence[str], *, epochs: int = 1
) -> list[str]:
    """The case ids of either run of ``pair`` that are one of ``scenarios``
    or one of their first ``epochs`` epochs (``<scenario>#0`` ..); for a
    scenario none of those finds, any ``<scenario>#...``. Sorted; one
    query on the (run, case id) index, two when some scenario numbers its
    epochs otherwise."""
    if not scenarios:
        return []
    wanted = [
        name
        for scenario in scenarios
        for name in (scenario, *(f"{scenario}#{e}" for e in range(epochs + 1)))
    ]
    found: set[str] = set()
    table = table_name()
    with connection.cursor() as cursor:
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT case_id FROM {table} "  # noqa: S608
                f"WHERE run_id IN (%s, %s) AND case_id IN ({marks})",
                [pair.base_pk, pair.candidate_pk, *chunk],
            )
            found.update(case_id for (case_id,) in cursor.fetchall())
        seen = {split_epoch(case_id)[0] for case_id in found}
        missed = [s for s in scenarios if s not in seen]
        if missed:
            found.update(_ranges(cursor, pair, missed))
    return sorted(found)


def _ranges(cursor: Any, pair: RunPair, scenarios: Sequence[str]) -> list[str]:
    """Every ``<scenario>#...`` id of ``scenarios`` (compared by code point)."""
    params: list[Any] = [pair.base_pk, pair.candidate_pk]
    case_id = 'case_id COLLATE "C"' if connection.vendor == "postgresql" else "case_id"
    clauses = []
    for scenario in scenarios:
        clauses.append(f"({case_id} > %s AND {case_id} < %s)")
        params.extend([f"{scenario}#", f"{scenario}$"])
    cursor.execute(
        f"SELECT DISTINCT case_id FROM {table_name()} "  # noqa: S608
        f"WHERE run_id IN (%s, %s) AND ({' OR '.join(clauses)})",
        params,
    )
    return [case_id for (case_id,) in cursor.fetchall()]
