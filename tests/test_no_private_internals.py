"""Production code touches no private internals of Django or the standard
library: no model instance's ``_state``, no queryset's ``_result_cache`` or
``_prefetched_objects_cache``, no ``logging._srcfile``. A fast path that
needs one finds a public way or is dropped."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "core",
    "evalsite",
    "stream",
    "evals",
    "gridworld",
    "prkeepalive",
    "accounts",
)
PRIVATE = re.compile(
    r"\._state\b|_srcfile\b|\._result_cache\b|\._prefetched_objects_cache\b"
)


def private_uses(root: Path) -> list[str]:
    """``file:line: text`` of every line under ``root``'s packages (outside
    migrations) that names a private internal."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.relative_to(root).parts:
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, start=1):
                if PRIVATE.search(line):
                    where = path.relative_to(root)
                    found.append(f"{where}:{number}: {line.strip()}")
    return found


def test_production_code_uses_no_private_internals() -> None:
    assert private_uses(ROOT) == []


def test_the_check_names_each_private_use_by_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "stream" / "migrations").mkdir(parents=True)
    (tmp_path / "stream" / "store.py").write_text(
        "x = 1\nthought._state.adding = False\nlogging._srcfile = None\n"
    )
    (tmp_path / "stream" / "migrations" / "0001.py").write_text("a._state.db\n")
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "q.py").write_text(
        "rows._result_cache\nrows._prefetched_objects_cache\nstate = 1\n"
    )
    assert private_uses(tmp_path) == [
        "core/q.py:1: rows._result_cache",
        "core/q.py:2: rows._prefetched_objects_cache",
        "stream/store.py:2: thought._state.adding = False",
        "stream/store.py:3: logging._srcfile = None",
    ]
