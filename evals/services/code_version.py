"""The code version a run records (EV-C4): the git commit, when known.

``EVALSITE_CODE_VERSION`` wins (an image built without ``.git`` sets it at
build time); otherwise ``git rev-parse HEAD`` in the checkout, read once per
process. Unknown (no git, not a checkout) is None, never an error.
"""

from __future__ import annotations

import functools
import re
import subprocess

from django.conf import settings

_COMMIT = re.compile(r"^[0-9a-f]{7,64}$")


@functools.cache
def _git_head() -> str | None:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],  # noqa: S607 (git from PATH, no input)
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    head = result.stdout.strip()
    return head if result.returncode == 0 and _COMMIT.match(head) else None


def code_version() -> str | None:
    configured = settings.EVALSITE_CODE_VERSION.strip()
    return configured or _git_head()
