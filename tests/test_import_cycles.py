"""No two project modules import each other, directly or through others.

The graph is import-linter's (grimp): every import statement, function-local
ones included, since a local import is still a dependency that runs. An
import under ``if TYPE_CHECKING:`` never runs and is left out. Each cycle is
named by the modules in it and the imports that close it.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import grimp

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
# The packages import-linter checks: every app, the project and the cores.
PACKAGES = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["root_packages"]


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(
        *PACKAGES,
        include_external_packages=False,
        exclude_type_checking_imports=True,
        cache_dir=None,
    )


def strongly_connected(graph: grimp.ImportGraph) -> Iterator[list[str]]:
    """Groups of two or more modules that reach each other (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(module: str) -> Iterator[list[str]]:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                yield from visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                yield sorted(group)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                yield from visit(module)
    finally:
        sys.setrecursionlimit(limit)


def describe(graph: grimp.ImportGraph, group: list[str]) -> str:
    members = set(group)
    edges = [
        f"{importer} -> {imported} (line "
        + ", ".join(
            str(detail["line_number"])
            for detail in graph.get_import_details(importer=importer, imported=imported)
        )
        + ")"
        for importer in group
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if imported in members
    ]
    return "; ".join(edges)


def test_the_finder_names_a_cycle_when_there_is_one() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.one", "a.two", "a.three"):
        graph.add_module(module)
    graph.add_import(
        importer="a.one", imported="a.two", line_number=3, line_contents="import a.two"
    )
    graph.add_import(
        importer="a.two", imported="a.one", line_number=7, line_contents="import a.one"
    )
    graph.add_import(
        importer="a.three",
        imported="a.one",
        line_number=1,
        line_contents="import a.one",
    )
    groups = list(strongly_connected(graph))
    assert groups == [["a.one", "a.two"]]
    assert (
        describe(graph, groups[0]) == "a.one -> a.two (line 3); a.two -> a.one (line 7)"
    )


def test_no_project_modules_import_each_other() -> None:
    graph = _graph()
    cycles = [describe(graph, group) for group in strongly_connected(graph)]
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)
