"""The rule for a machine without Chromium: the browser tests skip with one
line saying how to run them, except in CI, where each one fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_browser_tests(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The browser tests as `make test` runs them (-rs), in a child pytest
    whose Chromium path names nothing."""
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    base.update(
        EVALSITE_CHROMIUM=str(tmp_path / "no-chromium-here"),
        EVALSITE_VAR_DIR=str(tmp_path / "var"),
        **env,
    )
    return subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-rs", "tests/browser"),
            f"--ignore={Path(__file__).relative_to(ROOT)}",
        ],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def summary(output: str) -> dict[str, int]:
    last = output.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", last)}


def test_without_chromium_browser_tests_skip_with_one_line_saying_how_to_run_them(
    tmp_path: Path,
) -> None:
    result = run_browser_tests(tmp_path)

    assert result.returncode == 0, result.stdout + result.stderr
    counts = summary(result.stdout)
    assert counts.get("skipped", 0) >= 17
    assert set(counts) == {"skipped"}
    skipped = [line for line in result.stdout.splitlines() if "SKIPPED" in line]
    assert len(skipped) == 1
    assert f"SKIPPED [{counts['skipped']}]" in skipped[0]
    assert skipped[0].endswith(
        f"no Chromium at {tmp_path / 'no-chromium-here'}; to run the browser tests: "
        "apt-get install -y chromium (or EVALSITE_CHROMIUM=/path/to/chromium), "
        "then .venv/bin/pytest tests/browser"
    )


@pytest.mark.parametrize("ci", ["true", "1"])
def test_in_ci_a_missing_chromium_fails_every_browser_test(
    tmp_path: Path, ci: str
) -> None:
    result = run_browser_tests(tmp_path, CI=ci)

    assert result.returncode == 1, result.stdout + result.stderr
    counts = summary(result.stdout)
    # Failed in setup: pytest counts each as an error.
    assert set(counts) == {"errors"}
    assert counts["errors"] >= 17
    assert (
        f"CI=true but no Chromium at {tmp_path / 'no-chromium-here'}" in result.stdout
    )
