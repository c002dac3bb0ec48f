"""How a server file path is shown to users: relative to a configured root.

Pages, API answers and error messages never show where the server keeps its
files. Pure and deterministic: the roots come in as arguments (the shell
passes the configured directories), nothing touches the file system.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath


def _ordered(roots: Sequence[str]) -> list[str]:
    # Longest first, so a root inside another root (the suites directory
    # inside the project directory) wins.
    cleaned = {r.rstrip("/\\") for r in roots if r and r.rstrip("/\\")}
    return sorted(cleaned, key=lambda r: (-len(r), r))


def shown_path(path: str, roots: Sequence[str]) -> str:
    """``path`` relative to the first (longest) root that holds it; a path
    outside every root is shown by its file name alone; a relative path is
    kept. ``""`` stays ``""``."""
    if not path:
        return ""
    pure = PurePath(path)
    if not pure.is_absolute():
        return path
    for root in _ordered(roots):
        try:
            relative = pure.relative_to(root)
        except ValueError:
            continue
        return str(relative) if str(relative) != "." else ""
    return pure.name


def scrub_paths(text: str, roots: Sequence[str]) -> str:
    """``text`` (an error message) with every ``<root>/`` prefix removed, so
    ``/srv/app/evals/suites/x.jsonl: 2 invalid lines`` reads
    ``x.jsonl: 2 invalid lines``; a bare root becomes ``.``."""
    for root in _ordered(roots):
        for separator in ("/", "\\"):
            text = text.replace(root + separator, "")
        text = text.replace(root, ".")
    return text
