#!/usr/bin/env python
"""Django's command-line utility for evalsite."""

import os
import sys


def main() -> None:
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
