"""Every module of every pure core imports without Django, DRF or Celery."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE_PACKAGES = (
    "core",
    "accounts/core",
    "stream/core",
    "evals/core",
    "gridworld/core",
    "prkeepalive/core",
    "traces/core",
    "reviews/core",
    "search/core",
)


def core_modules() -> list[str]:
    modules = []
    for package in CORE_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules.append(".".join(parts))
    return modules


def test_core_modules_import_without_django() -> None:
    modules = core_modules()
    assert "stream.core" in modules
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'rest_framework', 'celery', 'evalsite'))\n"
        "print(','.join(bad))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
