"""PostgreSQL query plans of the hot reads, for the plan tests.

``plan_of`` runs ``EXPLAIN (FORMAT JSON)`` on the exact statement the code
sends: a queryset's ``sql_with_params()``, or a statement caught while the
real code path runs (``statement_matching``). ``assert_plan`` checks the
plan walks the intended index and names the problem when it does not: a
sequential scan of a big table, or a walk of an index that does not lead
with the filtered column (the global walk that made the feed's cost grow
with other agents' traffic).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext

Plan = dict[str, Any]


def plan_of(sql: str, params: Any = ()) -> Plan:
    """The plan PostgreSQL picks for ``sql`` with ``params`` (not run)."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        (document,) = cursor.fetchone()
    if isinstance(document, str):
        document = json.loads(document)
    return document[0]["Plan"]  # type: ignore[no-any-return]


def queryset_plan(queryset: QuerySet[Any]) -> Plan:
    sql, params = queryset.query.sql_with_params()
    return plan_of(sql, params)


def statement_matching(pattern: str, run: Callable[[], Any]) -> str:
    """The one statement ``run()`` sends that matches ``pattern`` (a regular
    expression), exactly as it went to the server."""
    with CaptureQueriesContext(connection) as queries:
        run()
    found = [q["sql"] for q in queries if re.search(pattern, q["sql"])]
    assert len(found) == 1, (pattern, [q["sql"] for q in queries])
    return found[0]


def nodes(plan: Plan) -> Iterator[Plan]:
    yield plan
    for child in plan.get("Plans", ()):
        yield from nodes(child)


def outline(plan: Plan) -> str:
    """The plan on one line per node, for failure messages."""
    lines = []

    def walk(node: Plan, depth: int) -> None:
        where = node.get("Index Name") or node.get("Relation Name") or ""
        lines.append(f"{'  ' * depth}{node['Node Type']} {where}".rstrip())
        for child in node.get("Plans", ()):
            walk(child, depth + 1)

    walk(plan, 0)
    return "\n".join(lines)


def assert_plan(
    plan: Plan,
    *,
    read: str,
    table: str,
    index: str | tuple[str, ...],
    no_sort: bool = False,
) -> None:
    """``read``'s plan reads ``table`` only through ``index`` (or one of
    them): no sequential scan of it, no walk of another of its indexes and,
    with ``no_sort``, no sort (the index gives the order)."""
    wanted = (index,) if isinstance(index, str) else index
    # A write's own node names the table it changes, not how it finds rows.
    on_table = [
        n
        for n in nodes(plan)
        if n.get("Relation Name") == table and n["Node Type"] != "ModifyTable"
    ]
    shown = outline(plan)
    assert on_table, f"{read}: the plan never reads {table}:\n{shown}"
    for node in on_table:
        kind = node["Node Type"]
        assert kind != "Seq Scan", (
            f"{read}: a sequential scan of {table} reads every row, so its "
            f"cost grows with the table, not with the answer:\n{shown}"
        )
        used = node.get("Index Name")
        if kind == "Bitmap Heap Scan":
            used = next(
                (n.get("Index Name") for n in nodes(node) if n.get("Index Name")),
                None,
            )
        assert used in wanted, (
            f"{read}: {table} is read through {used or kind}, not {wanted}: "
            f"a walk of an index that does not lead with the filtered "
            f"columns discards other rows on the way:\n{shown}"
        )
    if no_sort:
        sorts = [n for n in nodes(plan) if "Sort" in n["Node Type"]]
        assert not sorts, (
            f"{read}: sorts its rows, so it reads all of them before the "
            f"first; {wanted} gives them in order:\n{shown}"
        )
