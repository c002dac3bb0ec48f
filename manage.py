#!/usr/bin/env python
"""Django's command-line utility for evalsite."""

import os
import sys
from pathlib import Path

# `make demo` / `make venv` install the project into .venv. In a new shell
# `python` is usually another interpreter, without Django: run in .venv then,
# so `python manage.py ...` works as the docs print it.
VENV = Path(__file__).resolve().parent / ".venv"
VENV_PYTHON = VENV / "bin" / "python"


def _run_in_venv_or_explain() -> None:
    in_venv = Path(sys.prefix).resolve() == VENV.resolve()
    if VENV_PYTHON.exists() and not in_venv:
        # The project's own interpreter, with the same arguments.
        os.execv(VENV_PYTHON, [str(VENV_PYTHON), *sys.argv])  # noqa: S606
    sys.stderr.write(
        f"error: Django is not installed for {sys.executable}; run `make demo` "
        "(or `make venv`) first, then `python manage.py ...` uses .venv\n"
    )
    sys.exit(2)


def main() -> None:
    try:
        import django  # noqa: F401
    except ModuleNotFoundError:
        _run_in_venv_or_explain()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        # A missing or malformed setting: one line that says which, no traceback.
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
