"""``python -m evals.gate``: the documented name of the command-line CI gate,
kept working. The gate's command line is ``evals.cli``; its rules are
``evals.core.gate``'s.

In a new shell ``python`` is often another interpreter than the project's,
without its dependencies (or older than 3.12): the gate then runs itself
with the checkout's ``.venv/bin/python``, as ``manage.py`` does, so the
command works as the docs print it after ``make demo`` or ``make venv``.
"""

import os
import sys
from pathlib import Path
from typing import NoReturn

VENV = Path(__file__).resolve().parent.parent / ".venv"
VENV_PYTHON = VENV / "bin" / "python"
EXIT_UNUSABLE = 2


def _run_in_venv_or_explain(missing: str) -> NoReturn:
    in_venv = Path(sys.prefix).resolve() == VENV.resolve()
    if VENV_PYTHON.exists() and not in_venv:
        # The project's own interpreter, with the same arguments.
        argv = [str(VENV_PYTHON), "-m", "evals.gate", *sys.argv[1:]]
        os.execv(VENV_PYTHON, argv)  # noqa: S606
    sys.stderr.write(
        f"error: {missing} for {sys.executable}; run `make venv` (or `make "
        "demo`) first, then `python -m evals.gate ...` uses .venv\n"
    )
    sys.exit(EXIT_UNUSABLE)


def main() -> None:
    if sys.version_info < (3, 12):  # noqa: UP036 - any python3 of a new shell
        _run_in_venv_or_explain("evalsite needs Python >= 3.12")
    try:
        # Imported here, not at the top: an interpreter without the project's
        # packages must reach the re-run in .venv above instead of failing.
        from evals.cli import run
    except ModuleNotFoundError as exc:
        _run_in_venv_or_explain(f"{exc.name} is not installed")
    run()


if __name__ == "__main__":
    main()
