"""`python -m evals.gate` as the docs print it, in a new shell whose `python`
is not the project's (no dependencies, or older than 3.12)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def other_pythons() -> list[str]:
    """Interpreters beside the project's: its base (no dependencies) and an
    older python3.11, where the machine has them."""
    found = [getattr(sys, "_base_executable", ""), shutil.which("python3.11") or ""]
    return [python for python in found if python and Path(python).exists()]


@pytest.mark.parametrize("python", other_pythons())
def test_gate_run_by_another_python_runs_in_the_project_venv(
    python: str, tmp_path: Path
) -> None:
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("needs the project's .venv (make venv)")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VIRTUAL_ENV", "PYTHON"))
    }
    missing = tmp_path / "base"

    result = subprocess.run(
        [python, "-m", "evals.gate", "--base", str(missing), "--candidate", "."],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )

    # The gate itself answered (an unusable store is exit 2 with its reason),
    # not an import error of the other interpreter.
    assert (result.returncode, result.stderr) == (
        2,
        f"evals.gate: error: eval store directory not found: {missing}\n",
    )
