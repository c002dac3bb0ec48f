"""``python manage.py ...`` in a child process, as a person types it.

The child gets this process's environment less the variables whose names
start with ``drop_prefixes`` (or are listed in ``drop``), plus ``env``: each
test says which of the project's variables a new shell would not have.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_manage(
    *args: str,
    drop_prefixes: tuple[str, ...],
    drop: Iterable[str] = (),
    **env: str,
) -> subprocess.CompletedProcess[str]:
    dropped = set(drop)
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(drop_prefixes) and k not in dropped
    }
    base.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
