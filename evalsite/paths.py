"""Server paths as users see them: relative to the configured directories.

``core.paths`` decides; this module hands it the roots from settings (the
suites directory, the artifacts directory, the var directory and the
project directory, each as configured and resolved).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from core.paths import scrub_paths, shown_path


def path_roots() -> list[str]:
    roots: list[str] = []
    for name in ("EVALS_SUITES_DIR", "EVALS_ARTIFACTS_DIR", "VAR_DIR", "BASE_DIR"):
        value = getattr(settings, name, None)
        if not value:
            continue
        roots.append(str(value))
        roots.append(str(Path(value).resolve()))
    return roots


def shown(path: str | Path | None) -> str:
    """One path, relative to the root holding it (else its file name)."""
    return shown_path(str(path or ""), path_roots())


def scrubbed(value: Any) -> Any:
    """``value`` (a message, or a JSON value of them) with every configured
    root removed from its strings."""
    roots = path_roots()

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return scrub_paths(item, roots)
        if isinstance(item, dict):
            return {key: walk(v) for key, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [walk(v) for v in item]
        return item

    return walk(value)
